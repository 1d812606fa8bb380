# SPDX-License-Identifier: GPL-2.0
#
# TAP lines for the host-side shell tests (sourced, not run):
#   ok NAME                 "ok N NAME"
#   notok NAME DETAIL...    "not ok N NAME", then each DETAIL as "#   ..."
#   tap_end LABEL           "LABEL: P passed, F failed"; fails if F > 0
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() {
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n $1"
	shift
	printf '#   %s\n' "$@"
}
tap_end() {
	echo "$1: $((n - bad)) passed, $bad failed"
	[ "$bad" -eq 0 ]
}
