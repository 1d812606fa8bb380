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
#      OVERFLOW and RESUME, and stops itself.
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

echo
echo "demo: all steps passed"
