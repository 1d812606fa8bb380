#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench's row against LTTng, in the guest (bench.sh runs it):
#
#   sh /ketw/bench-lttng.sh ROWS NOTE
#
# appends rows to bench.sh's ROWS file (its format: MEASURE|KETW|REF|
# SCALE|OP|TARGET) and the table's note on them to NOTE.
#
# Equal work, in one boot: ketw_sample's emit_filter logs N events with
# the payload of LTTng's lttng_test_filter_event (235 bytes, the same
# fields from the same arguments) into a ketw LOOP session of 4 MiB per
# CPU; lttng-test.ko logs N lttng_test_filter_event events, for an N
# written to /proc/lttng-test-filter-event, into an LTTng kernel
# snapshot session (flight recorder: an overwrite channel of 4 x 1 MiB
# sub-buffers per CPU; nothing goes to disk until a snapshot is taken).
# ketw-write-bench times the two writes alternately from CPU 0: WARM
# rounds each first, then ROUNDS; the medians make the row, the fastest
# and slowest rounds the spread. Afterwards both are checked to have
# kept what they were given: ketw_sample's "stored" counter, and an LTTng
# snapshot of at least a sub-buffer. Without LTTng (or when a step of it
# fails) ketw runs alone and the note says exactly why.
set -u

ROWS=${1:?usage: bench-lttng.sh ROWS NOTE}
NOTE=${2:?usage: bench-lttng.sh ROWS NOTE}
N=${LTTNG_BENCH_N:-100000}
WARM=2
ROUNDS=15
KETW=/ketw/ketw
WB=/ketw/bench/ketw-write-bench
SAMPLE=/sys/module/ketw_sample/parameters
SESSION=lttbench
SIZE=235
MEASURE="ketw vs LTTng $N x $SIZE B (ns/event)"

. /ketw/lttng-lib.sh

row() { printf '%s|%s|%s|%s|%s|%s\n' "$@" >>"$ROWS"; }
note() { echo "$*" >>"$NOTE"; }
val() { echo " $1 " | sed -n "s/.* $2=\([^ ]*\) .*/\1/p"; }

fail_lttng() {
	LTTNG_WHY="$*"
	echo "bench-lttng: LTTng: $LTTNG_WHY"
}

# lt ARGS: lttng ARGS, quiet unless it fails.
lt() {
	lout=$(lttng "$@" 2>&1) && return 0
	fail_lttng "lttng $*: $(echo "$lout" | grep -m 1 -i error)"
	return 1
}

# ketw's session, and LTTng's if it came up.
$KETW reset -s $SESSION >/dev/null 2>&1
$KETW start -s $SESSION -b 4096 -P loop -p ketw-sample ||
	{ echo "bench-lttng: ketw start failed"; exit 1; }
files=$SAMPLE/emit_filter
lttng_ok=0
if lttng_up; then
	lttng_ok=1
	lt create $SESSION --snapshot &&
	lt enable-channel -k --overwrite --subbuf-size=1M --num-subbuf=4 ch &&
	lt enable-event -k -c ch lttng_test_filter_event &&
	lt start || lttng_ok=0
	[ $lttng_ok = 0 ] || files="$files $LTTNG_PROC"
else
	fail_lttng "$LTTNG_WHY"
fi

stored0=$(cat $SAMPLE/stored)
echo "bench-lttng: ketw-write-bench -n $N -w $WARM -r $ROUNDS $files"
out=$($WB -c 0 -w $WARM -r $ROUNDS -n "$N" $files 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
[ $rc = 0 ] || { echo "bench-lttng: ketw-write-bench exited $rc"; lttng_down; exit 1; }
stored=$(($(cat $SAMPLE/stored) - stored0))
want=$(((WARM + ROUNDS) * N))
$KETW reset -s $SESSION >/dev/null 2>&1
[ "$stored" = "$want" ] ||
	{ echo "bench-lttng: ketw stored $stored events, not $want"; lttng_down; exit 1; }
k=$(echo "$out" | grep '^write-bench 0 ')

if [ $lttng_ok = 1 ]; then
	# What LTTng kept: a snapshot of the channel, at least a sub-buffer.
	snap=/tmp/lttng-snap
	rm -rf $snap
	if lt stop && lt snapshot record "file://$snap"; then
		kb=$(du -sk $snap | cut -f1)
		echo "bench-lttng: LTTng snapshot: ${kb} KiB"
		[ "$kb" -ge 1024 ] ||
			{ fail_lttng "its snapshot holds ${kb} KiB, less than a sub-buffer"; lttng_ok=0; }
	else
		lttng_ok=0
	fi
	rm -rf $snap
fi
lttng_down

km=$(val "$k" median_ps)
if [ $lttng_ok = 1 ]; then
	l=$(echo "$out" | grep '^write-bench 1 ')
	lm=$(val "$l" median_ps)
	row "$MEASURE" "$km" "$lm" 1000 '<=' 1.0
	row "  same, fastest rounds" "$(val "$k" min_ps)" "$(val "$l" min_ps)" 1000 - -
	spread() { echo "$(($(val "$1" min_ps) / 1000))..$(($(val "$1" max_ps) / 1000)) ns"; }
	note "ketw vs LTTng: ketw_sample's emit_filter against lttng-test.ko's"
	note "  /proc/lttng-test-filter-event, $N events of $SIZE B per write, the"
	note "  lttng_test_filter_event payload; a ketw LOOP session and an LTTng"
	note "  kernel snapshot channel (overwrite), both 4 MiB per CPU; writer on CPU 0,"
	note "  medians of $ROUNDS alternating rounds after $WARM (ranges: ketw $(spread "$k"),"
	note "  LTTng $(spread "$l")). LTTng's probe writes the payload into its"
	note "  sub-buffer field by field; ketw_sample fills the same fields in a struct"
	note "  that ketw_write() copies once. $(cat /ketw/lttng/available)."
else
	row "ketw alone: LTTng not run (see below)" "$km" 0 1000 - -
	note "ketw vs LTTng: LTTng not run: $LTTNG_WHY"
	note "  (ketw alone: $N events of $SIZE B per write, median of $ROUNDS rounds)."
fi
exit 0
