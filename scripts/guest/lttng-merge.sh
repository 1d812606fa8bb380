#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make lttng-test, in the guest (/init's ketwmode=lttng): a ketw
# recording and an LTTng kernel trace of the same boot, taken at the
# same time, sent to the host, where babeltrace2 merges them
# (tools/tests/viewers/lttng_merge_test.py checks the merge).
#
# LTTng: a normal session writing to /tmp/merge/lttng (its kernel trace
# in kernel/), lttng_test_filter_event and sched_switch. ketw: a LOOP
# session of ketw-sample, extracted to /tmp/merge/trace.ketw. In
# between, ROUNDS rounds in a known order: round r writes r to
# /proc/lttng-test-filter-event (r LTTng events), then r to ketw_sample's
# emit_filter (r ketw events of the same payload); so on one timeline
# the events of the two come in runs of 1, 1, 2, 2, 3, 3, ... alternating,
# LTTng first. Both go to the host as a tar on the second serial port
# (ttyS1), as the demo's files do: "@@KETW@@ EXPORT trace.ketw lttng".
set -u

KETW=/ketw/ketw
OUT=/tmp/merge
EMIT=/sys/module/ketw_sample/parameters/emit_filter
SESSION=merge
ROUNDS=4

. /ketw/lttng-lib.sh

fail() {
	echo "lttng-merge: FAILED: $*"
	$KETW reset -s $SESSION >/dev/null 2>&1
	lttng_down
	exit 1
}
run() {
	echo "+ $*"
	"$@" || fail "$* (exit $?)"
}

lttng_up || fail "LTTng: $LTTNG_WHY"
rm -rf $OUT
mkdir -p $OUT
run $KETW start -s $SESSION -b 1024 -p ketw-sample
run lttng create $SESSION --output=$OUT/lttng
run lttng enable-channel -k ch
run lttng enable-event -k -c ch lttng_test_filter_event,sched_switch
run lttng start
r=1
while [ $r -le $ROUNDS ]; do
	echo $r >"$LTTNG_PROC" || fail "write $r to $LTTNG_PROC"
	echo $r >$EMIT || fail "write $r to $EMIT"
	r=$((r + 1))
done
# stop waits until LTTng's buffers can be read; destroy has the consumer
# daemon write them out and close the trace.
run lttng stop
run lttng destroy $SESSION
run $KETW stop -s $SESSION
run $KETW extract -s $SESSION -o $OUT/trace.ketw
$KETW reset -s $SESSION
lttng_down

want=$((ROUNDS * (ROUNDS + 1) / 2))
got=$($KETW report $OUT/trace.ketw | grep -c 'event=filter ')
[ "$got" = "$want" ] || fail "trace.ketw holds $got filter events, not $want"
[ -n "$(find $OUT/lttng -name metadata)" ] || fail "no LTTng metadata in $OUT/lttng"
find $OUT/lttng -type f | sed 's/^/  /'

stty -F /dev/ttyS1 raw -echo 2>/dev/null
tar -C $OUT -cf /dev/ttyS1 trace.ketw lttng || fail "cannot send the traces to the host"
echo "@@KETW@@ EXPORT trace.ketw lttng"
echo "lttng-merge: both traces sent"
