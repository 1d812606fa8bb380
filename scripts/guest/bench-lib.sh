# SPDX-License-Identifier: GPL-2.0
#
# What the guest's benchmark scripts share (bench.sh, bench-compare.sh):
# sourced, never run. /ketw/bench/bench-lib.sh in the guest.
#
# Figures are picoseconds (or events/s) as ketw_bench prints them; a
# figure measured several times is a list of its runs separated by
# commas, in the order they ran, so that run i of two lists measured
# side by side (the same round) can be paired.

PARAMS=/sys/module/ketw_bench/parameters

mark() { echo "@@KETW@@ $*"; }

# die MESSAGE: stop the script ($TAG names it), leaving no session and no
# ketw_bench behind.
die() {
	echo "${TAG:-bench}: FAILED: $*"
	${KETW:-/ketw/ketw} reset --all --yes >/dev/null 2>&1
	[ ! -d "$PARAMS" ] || rmmod ketw_bench
	exit 1
}

# bench_try ARGS: one ketw_bench command; its result line in $res. Fails
# if ketw_bench refused it (a command this version lacks: EINVAL) or the
# measurement failed (dmesg says why).
bench_try() {
	echo "bench: $*"
	res=
	echo "$*" >"$PARAMS/run" || return 1
	res=$(cat "$PARAMS/result")
	echo "  $res"
}

# kv KEY: the value of KEY=... in $res (empty without one).
kv() { echo " $res " | sed -n "s/.* $1=\([^ ]*\) .*/\1/p"; }

# append VAR VALUE: add VALUE to the comma-separated list in $VAR.
append() { eval "$1=\${$1:+\$$1,}\$2"; }

# rotate N WORDS...: the words, starting at the (N mod count)-th.
rotate() {
	_n=$1
	shift
	_i=$((_n % $#))
	while [ "$_i" -gt 0 ]; do
		_w=$1
		shift
		set -- "$@" "$_w"
		_i=$((_i - 1))
	done
	echo "$*"
}

# awk functions over such lists: lsort() splits and sorts one into v[]
# and returns its length; lmed() its median (of the two middle runs for
# an even count); lspread() (max - min) / median, -1 for fewer than two
# runs; paired(a, b, op, t) how many of the i-th runs' ratios a[i] / b[i]
# meet "op t" (op <= or >=); fmt() a figure in 3 significant digits;
# pct() a spread as "-" or a percentage.
# shellcheck disable=SC2034 # used by the scripts that source this
BENCH_AWK='
function lsort(s, v,   n, i, j, t) {
	n = split(s, v, ",")
	for (i = 2; i <= n; i++) {
		t = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > t; j--)
			v[j + 1] = v[j]
		v[j + 1] = t
	}
	return n
}
function lmed(s,   v, n) {
	n = lsort(s, v)
	if (n == 0) return 0
	return n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
}
function lmin(s,   v, n) { n = lsort(s, v); return n ? v[1] + 0 : 0 }
function lmax(s,   v, n) { n = lsort(s, v); return n ? v[n] + 0 : 0 }
function lspread(s,   v, n, m) {
	n = lsort(s, v)
	if (n < 2) return -1
	m = lmed(s)
	return m > 0 ? (v[n] - v[1]) / m : 0
}
function meets(r, op, t) { return op == "<=" ? r <= t : r >= t }
function paired(a, b, op, t,   x, y, n, i, k) {
	n = split(a, x, ",")
	if (n != split(b, y, ",")) return -1
	k = 0
	for (i = 1; i <= n; i++)
		if (y[i] > 0 && meets(x[i] / y[i], op, t)) k++
	return k
}
function fmt(v) {
	if (v >= 100) return sprintf("%.0f", v)
	if (v >= 10) return sprintf("%.1f", v)
	return sprintf("%.2f", v)
}
function pct(f) {
	if (f < 0) return "-"
	return f * 100 >= 9.95 ? sprintf("%.0f%%", f * 100) : sprintf("%.1f%%", f * 100)
}
'
