#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ketw demo, run by /init inside the QEMU guest (make demo), with
# ketw, ketw_sample and ketw_stress loaded:
#
#   1. the providers and their events (ketw list);
#   2. two sessions on the same provider with different filters: "warn"
#      takes ketw-sample at level WARNING, "all" at VERBOSE with keyword
#      0x1; ketw_sample then logs 10 tick events (INFO, keyword 0x1) and
#      5 warn events (WARNING, keyword 0x2): "warn" must hold the 5 warn
#      events only, "all" the 10 ticks only, decoded by their layouts;
#   3. an UNTIL_FULL session in a one-page buffer: it overflows, logs
#      OVERFLOW and RESUME, and stops itself;
#   4. a recording of ketw_stress and ketw_sample in one-page buffers that
#      loses events on both CPUs, converted for Perfetto (trace.json) and
#      drawn (timeline.svg); both and the trace go to the host as a tar
#      on the second serial port, which run-vm.sh unpacks in build/demo/.
#
# Any failing step fails the demo (exit status not 0).
set -eu

KETW=/ketw/ketw
SAMPLE=/sys/module/ketw_sample/parameters
TMP=/tmp/ketw-demo
mkdir -p "$TMP"

run() {
	echo "\$ $*"
	"$@"
}

# emit N PARAM: have ketw_sample log N events through /sys.
emit() {
	echo "\$ echo $1 > $SAMPLE/$2"
	echo "$1" >"$SAMPLE/$2"
}

fail() {
	echo "demo: FAILED: $*"
	exit 1
}

# count FILE PATTERN: lines of FILE holding PATTERN (0 if none).
count() {
	grep -c -e "$2" "$1" || true
}

# expect FILE PATTERN N WHAT
expect() {
	n=$(count "$1" "$2")
	[ "$n" -eq "$3" ] || fail "$4: $n, expected $3"
	echo "check: $4: $n"
}

section() {
	echo
	echo "=== $* ==="
}

section "providers"
run $KETW list

section "two sessions, one provider, different filters"
run $KETW start -s warn -p ketw-sample:warning
run $KETW start -s all -p ketw-sample:verbose:0x1
emit 10 emit
emit 5 emit_warn
run $KETW status -s warn
run $KETW status -s all
run $KETW stop -s warn
run $KETW stop -s all
run $KETW extract -s warn -o "$TMP/warn.ketw"
run $KETW extract -s all -o "$TMP/all.ketw"

section "the rundown names the provider and its events' layouts"
echo "\$ $KETW report $TMP/warn.ketw > $TMP/warn.txt"
$KETW report "$TMP/warn.ketw" >"$TMP/warn.txt"
echo "\$ grep -e ' PROVIDER ' -e ' EVENT_DESC ' $TMP/warn.txt"
grep -e ' PROVIDER ' -e ' EVENT_DESC ' "$TMP/warn.txt"
echo "($(count "$TMP/warn.txt" ' TASK pid=') TASK records not shown)"

section "session warn: level WARNING"
run $KETW report -R "$TMP/warn.ketw"

section "session all: level VERBOSE, keyword 0x1"
run $KETW report -R "$TMP/all.ketw"

section "checks"
$KETW report -R "$TMP/warn.ketw" >"$TMP/warn.txt"
$KETW report -R "$TMP/all.ketw" >"$TMP/all.txt"
expect "$TMP/warn.txt" ' event=warn ' 5 "warn events in session warn"
expect "$TMP/warn.txt" ' event=tick ' 0 "tick events in session warn"
expect "$TMP/warn.txt" 'text="warning"' 5 "decoded warn payloads in session warn"
expect "$TMP/all.txt" ' event=tick ' 10 "tick events in session all"
expect "$TMP/all.txt" ' event=warn ' 0 "warn events in session all"
expect "$TMP/all.txt" ' magic=0x6b657477 ' 10 "decoded tick payloads in session all"
expect "$TMP/all.txt" '^    [0-9a-f]\{4\}  ' 0 "hex dumps in session all"
run $KETW reset -s warn
run $KETW reset -s all

section "until-full in one page: overflow, then the session stops itself"
run $KETW start -s full -P until-full -b 4 --no-rundown -p ketw-sample
emit 200 emit
run $KETW status -s full
run $KETW extract -s full -o "$TMP/full.ketw"
run $KETW report -H "$TMP/full.ketw"
echo "\$ $KETW report -N $TMP/full.ketw > $TMP/full.txt"
$KETW report -N "$TMP/full.ketw" >"$TMP/full.txt"
echo "\$ grep -e OVERFLOW -e RESUME -e STOP $TMP/full.txt"
grep -e OVERFLOW -e RESUME -e STOP "$TMP/full.txt"
expect "$TMP/full.txt" '    STOP: stopped by the full policy' 1 "STOP by the full policy"
[ "$(count "$TMP/full.txt" 'id=OVERFLOW ')" -ge 1 ] ||
	fail "no OVERFLOW record"
[ "$(count "$TMP/full.txt" '    RESUME: ')" -ge 1 ] ||
	fail "no RESUME record"
echo "check: OVERFLOW and RESUME recorded"
run $KETW reset -s full

section "viewers: a trace with losses on both CPUs, converted and drawn"
# ketw_stress logs from every context of both CPUs every 50 us into
# one-page buffers that the recorder drains every 100 ms: both CPUs lose
# events, and OVERFLOW/RESUME say where. ketw_sample adds a second
# provider. The files go to the host (build/demo/, see run-vm.sh).
STRESS=/sys/module/ketw_stress/parameters
echo 50 >"$STRESS/period_us"
echo "\$ $KETW record -s view -P flush -b 4 -p ketw-stress -p ketw-sample -d 3 -o $TMP/view.ketw &"
$KETW record -s view -P flush -b 4 -p ketw-stress -p ketw-sample -d 3 \
	-o "$TMP/view.ketw" &
rec=$!
sleep 1
emit 10 emit
echo "\$ echo 300 > $STRESS/run_ms"
echo 300 >"$STRESS/run_ms"
emit 5 emit_warn
wait $rec || fail "ketw record failed"
echo 1000 >"$STRESS/period_us"
run $KETW report -H "$TMP/view.ketw"
$KETW report -N "$TMP/view.ketw" >"$TMP/view.txt"
for cpu in 0 1; do
	[ "$(count "$TMP/view.txt" "^  cpu=$cpu .*id=OVERFLOW ")" -ge 1 ] ||
		fail "no OVERFLOW on cpu $cpu"
done
echo "check: events lost on both CPUs, OVERFLOW and RESUME recorded"
run $KETW convert "$TMP/view.ketw" --to chrome -o "$TMP/trace.json"
run $KETW plot "$TMP/view.ketw" -o "$TMP/timeline.svg"
grep -q 'class="loss"' "$TMP/timeline.svg" || fail "no loss shaded in the plot"
# To the host: a tar on the second serial port (run-vm.sh keeps it).
files="timeline.svg trace.json view.ketw"
stty -F /dev/ttyS1 raw -echo 2>/dev/null
tar -C "$TMP" -cf /dev/ttyS1 $files || fail "cannot send the files to the host"
echo "@@KETW@@ EXPORT $files"

echo
echo "demo: all steps passed"
