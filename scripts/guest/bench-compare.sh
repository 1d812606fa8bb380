#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-compare A=<commit> B=<commit>, in the QEMU guest: bench.sh
# runs this instead of itself when the kernel command line has
# ketwbench=compare. Never run on a host.
#
# Two commits' ketw.ko, ketw_bench.ko and ketw tool (scripts/bench-compare.sh
# builds them), loaded turn about in this one boot: in each round, A then
# B, or B then A (the order alternates), each loaded, measured on the
# write rows and unloaded. A change's effect is then B / A, measured
# minutes apart on the same machine, not on different days.
#
# Needs, in /ketw/bench/:
#   a-ketw.ko a-ketw_bench.ko a-ketw   commit A's module, bench module, tool
#   a-ketw-uprov-bench                 and user-provider bench (if it has one)
#   b-ketw.ko b-ketw_bench.ko b-ketw   commit B's
#   b-ketw-uprov-bench
#   compare.txt                        "a SHA SUBJECT" and "b SHA SUBJECT"
#   bench-lib.sh                       the helpers shared with bench.sh
# The kernel command line's ketwrounds=N sets the rounds (default 4).
#
# A row one side cannot measure (its ketw_bench lacks the command, or its
# tool the option) is skipped with a note; the others go on. Prints the
# table between "@@KETW@@ BENCH-TABLE-BEGIN" and "@@KETW@@ BENCH-TABLE-END"
# (the host saves it to build/bench-compare.txt).
set -u

DIR=/ketw/bench
SESSION=kcmp
SIZES="8 64 256"
ITEMS="stack ustack cputime progaddr pidns activity"
NSESSIONS="1 4 16 64"
NSESSION_KB=1024
FIGS=/tmp/compare.figs
NOTES=/tmp/compare.notes
ROUNDS=4
for arg in $(cat /proc/cmdline); do
	case $arg in
	ketwrounds=[1-9]*) ROUNDS=${arg#ketwrounds=} ;;
	esac
done

# shellcheck source=scripts/guest/bench-lib.sh
. $DIR/bench-lib.sh

: >"$FIGS"
: >"$NOTES"

# note TEXT: a line under the table (once).
note() { grep -qxF "$*" "$NOTES" || echo "$*" >>"$NOTES"; }

# try M KEY COMMAND...: ketw_bench COMMAND under module M; its figure
# ps=... as KEY of this round. A refused command becomes a note.
try() {
	_m=$1 _key=$2
	shift 2
	if ! out=$( (echo "$*" >"$PARAMS/run") 2>&1); then
		case $out in
		*"Invalid argument"*)
			note "$(up "$_m")'s ketw_bench refused '$*' (a command it lacks?): rows skipped" ;;
		*)
			note "$(up "$_m"): ketw_bench '$*' failed: $out" ;;
		esac
		echo "bench: $_m: $* refused: $out"
		return 1
	fi
	res=$(cat "$PARAMS/result")
	echo "bench: $_m: $*"
	echo "  $res"
	fig_add "$_m" "$_key" "$(kv "${PSKEY:-ps}")"
}

# fig_add M KEY VALUE: one round's figure.
fig_add() { [ -z "$3" ] || echo "$1 $2 $3" >>"$FIGS"; }

up() { echo "$1" | tr ab AB; }

# session M ARGS...: (re)start the session with M's tool.
session() {
	_m=$1
	shift
	$KETW reset -s $SESSION >/dev/null 2>&1
	if ! $KETW start -s $SESSION -b 4096 -P loop "$@" >/dev/null 2>&1; then
		note "$(up "$_m")'s tool: 'ketw start $*' failed: rows skipped"
		return 1
	fi
}

param() { echo "$2" >"$PARAMS/$1" 2>/dev/null; }

# uprov M ARGS...: M's ketw-uprov-bench (its libketw) with ARGS; its
# result line in $res. One that fails or is missing becomes a note.
uprov() {
	_m=$1
	shift
	if [ ! -x "$DIR/$_m-ketw-uprov-bench" ]; then
		note "$(up "$_m") has no ketw-uprov-bench: user write rows skipped"
		return 1
	fi
	out=$("$DIR/$_m-ketw-uprov-bench" "$@" 2>&1)
	rc=$?
	echo "bench: $_m: ketw-uprov-bench $*"
	echo "$out" | sed 's/^/  /'
	if [ $rc != 0 ]; then
		note "$(up "$_m")'s ketw-uprov-bench $* exited $rc: its rows skipped"
		return 1
	fi
	res=$(echo "$out" | grep '^uprov-')
}

load() {
	for k in ketw ketw_bench; do
		insmod "$DIR/$1-$k.ko" 2>&1
		rc=$?
		mark "INSMOD $1-$k.ko rc=$rc"
		[ $rc = 0 ] || return 1
	done
}

unload() {
	for k in ketw_bench ketw; do
		[ -d "/sys/module/$k" ] || continue
		rmmod "$k" 2>&1
		mark "RMMOD $1-$k.ko rc=$?"
	done
}

# measure M: the write rows under module M, once.
measure() {
	m=$1
	KETW=$DIR/$m-ketw
	param reps 3
	param iters 200000
	param warm_kb 8192
	try "$m" ref ref
	# ftrace's ring buffer is the kernel's, the same under A and B: its
	# B / A is the run's noise. Each size right before ketw's write of
	# it, so that ketw's figure can also be taken relative to ftrace's
	# of the same load, seconds apart: a slow phase of the host that
	# spans both cancels out.
	if session "$m"; then
		for s in $SIZES; do
			try "$m" "ftrace_$s" ftrace "$s" || continue
			f=$(kv ps)
			try "$m" "write_$s" write "$s" || continue
			fig_add "$m" "rel_$s" "$(awk -v k="$(kv ps)" -v f="$f" \
				'BEGIN { printf "%.0f", k * 1000 / f }')"
		done
		try "$m" ctx_64 context 64 &&
			fig_add "$m" noctx_64 "$(kv noctx_ps)"
		# A user-space provider's write, into the same session: through
		# libketw, then its floor (USER_WRITEV made directly, a null
		# ioctl on the provider's file, a null system call), interleaved.
		uprov "$m" --enabled -s 64 -r 5 &&
			fig_add "$m" uwrite_64 "$(kv ps)"
		if uprov "$m" --floor -s 64 -r 5; then
			fig_add "$m" uwritev_64 "$(kv user_writev_ps)"
			fig_add "$m" uioctl "$(kv ioctl_ps)"
			fig_add "$m" getppid "$(kv syscall_ps)"
			fig_add "$m" uwv_rel "$(awk -v w="$(kv user_writev_ps)" \
				-v i="$(kv ioctl_ps)" 'BEGIN { if (i > 0) printf "%.0f", w * 1000 / i }')"
		fi
	fi
	if session "$m" -C local; then
		for s in $SIZES; do
			try "$m" "local_$s" write "$s"
		done
	fi
	for it in $ITEMS; do
		session "$m" -p "ketw-bench:$it" &&
			try "$m" "item_$it" write 64
	done
	$KETW reset -s $SESSION >/dev/null 2>&1
	# N LOOP sessions on the bench provider, 1 MiB per CPU each.
	param warm_kb $((NSESSION_KB * 3 / 2))
	have=0
	t1=
	for n in $NSESSIONS; do
		while [ $have -lt "$n" ]; do
			have=$((have + 1))
			$KETW start -s "kn$have" -b $NSESSION_KB -P loop -p ketw-bench \
				>/dev/null 2>&1 || break
		done
		if [ $have -lt "$n" ]; then
			note "$(up "$m")'s tool: could not start $n sessions: rows skipped"
			break
		fi
		if ! param sessions "$n" && [ "$n" != 1 ]; then
			note "$(up "$m")'s ketw_bench has no 'sessions' parameter (it counts the N records of an event as lost): N > 1 skipped"
			break
		fi
		param iters $((200000 / n))
		try "$m" "nsess_$n" write 64 || break
		tn=$(kv ps)
		if [ "$n" = 1 ]; then
			t1=$tn
		elif [ -n "$t1" ]; then
			fig_add "$m" "added_$n" "$(awk -v t="$tn" -v o="$t1" -v n="$n" \
				'BEGIN { printf "%.0f", (t - o) * 1000 / (n - 1) / o }')"
		fi
	done
	while [ $have -gt 0 ]; do
		$KETW reset -s "kn$have" >/dev/null 2>&1
		have=$((have - 1))
	done
	param sessions 1
	param iters 200000
	param warm_kb 8192
}

echo "bench-compare: $ROUNDS rounds; $(cat $DIR/compare.txt | tr '\n' ';')"
r=0
rc=0
while [ $r -lt "$ROUNDS" ]; do
	order="a b"
	[ $((r % 2)) = 0 ] || order="b a"
	for m in $order; do
		echo "bench-compare: round $((r + 1)) of $ROUNDS, $(up "$m")"
		if load "$m"; then
			measure "$m"
		else
			rc=1
		fi
		unload "$m"
		[ ! -d /sys/module/ketw ] || { echo "bench-compare: ketw stays loaded"; rc=1; }
	done
	r=$((r + 1))
done

# The rows: KEY|MEASURE|SCALE.
ROWSPEC=/tmp/compare.rows
{
	for s in $SIZES; do echo "write_$s|write, $s B payload (ns/event)|1000"; done
	for s in $SIZES; do echo "rel_$s|  write $s B / ftrace $s B, same load|1000"; done
	for s in $SIZES; do echo "local_$s|  same, clock LOCAL, $s B|1000"; done
	echo "ctx_64|write 64 B with context (ns/event)|1000"
	echo "noctx_64|  without the context bits|1000"
	for it in $ITEMS; do echo "item_$it|64 B write + item $it|1000"; done
	echo "uwrite_64|user write 64 B, libketw (ns/event)|1000"
	echo "uwritev_64|  USER_WRITEV 64 B, made directly|1000"
	echo "uioctl|  a null ioctl on the provider's file|1000"
	echo "uwv_rel|  USER_WRITEV / null ioctl, same load|1000"
	for n in $NSESSIONS; do echo "nsess_$n|64 B event, $n LOOP session(s)|1000"; done
	for n in $NSESSIONS; do
		[ "$n" = 1 ] || echo "added_$n|  each added session vs one, N=$n|1000"
	done
	for s in $SIZES; do echo "ftrace_$s|control: ftrace, $s B (ns/event)|1000"; done
	echo "ref|control: reference loop (ns/turn)|1000"
	echo "getppid|control: null system call, getppid (ns)|1000"
} >"$ROWSPEC"

mark "BENCH-TABLE-BEGIN"
sed -n 's/^a /A = /p; s/^b /B = /p' $DIR/compare.txt
awk -F'|' -v figs="$FIGS" -v notes="$NOTES" "$BENCH_AWK"'
BEGIN {
	while ((getline l < figs) > 0) {
		split(l, f, " ")
		key = f[1] SUBSEP f[2]
		if (key in v)
			v[key] = v[key] "," f[3]
		else
			v[key] = f[3]
	}
	line = "-------------------------------------------------------------------------------------------------"
	printf "%-38s %8s %6s %8s %6s %6s  %s\n", "measure", "A", "spread", "B", "spread", "B/A", "B/A by round"
	print line
}
{
	a = v["a" SUBSEP $1]; b = v["b" SUBSEP $1]
	if (a == "" || b == "") {
		printf "%-38s  skipped: %s\n", $2, a == "" ? (b == "" ? "neither" : "A") " measured none" : "B measured none"
		next
	}
	ma = lmed(a); mb = lmed(b)
	na = split(a, x, ","); nb = split(b, y, ",")
	lo = hi = ""
	if (na == nb)
		for (i = 1; i <= na; i++) {
			if (x[i] <= 0) continue
			q = y[i] / x[i]
			if (lo == "" || q < lo) lo = q
			if (hi == "" || q > hi) hi = q
		}
	by = lo == "" ? "-" : sprintf("%.2f..%.2f (%d)", lo, hi, na)
	if ($1 ~ /^(ftrace_|ref$|getppid$)/ && lo != "") {
		if (noise == "" || 1 - lo > noise) noise = 1 - lo
		if (hi - 1 > noise) noise = hi - 1
	}
	printf "%-38s %8s %6s %8s %6s %6.2f  %s\n", $2, fmt(ma / $3), pct(lspread(a)),
		fmt(mb / $3), pct(lspread(b)), (ma > 0 ? mb / ma : 0), by
}
END {
	print line
	if (noise != "")
		printf "noise: the B/A of the controls strays up to %.0f%% from 1.00 in a round: a\n  difference between A and B smaller than that is noise of this run\n", noise * 100
	while ((getline l < notes) > 0) print "note: " l
}' "$ROWSPEC"
cat <<EOF
Each module loaded $ROUNDS times, A and B turn about in one boot (ABBA...);
  each figure the median of 3 runs of 200000 events per load (N
  sessions: 200000/N), the table the median over the loads, spread
  (max - min) / median; "B/A by round": B's figure over A's of the same
  round, lowest..highest. Write rows as make bench's (4 MiB/CPU LOOP
  session, one kthread on CPU 0); N sessions: N LOOP sessions of 1 MiB/CPU
  on the bench provider; "each added session vs one": (t(N) - t(1)) /
  (N - 1) / t(1) of each load; "write / ftrace, same load": ketw's
  figure over ftrace's measured just before it, in thousandths, whose
  B/A cancels a slow phase of the host that spans both. User write:
  each side's ketw-uprov-bench (its own libketw) on the provider
  user.ketw-uprov-bench in the 4 MiB session, median of 5 runs of 20000
  events; "made directly": the ioctl without libketw, interleaved with
  the null ioctl (ENOTTY, ketw's ioctl entry and the kernel's), and
  getppid(). The controls run the same code under A and B (the kernel's
  ftrace ring buffer, an arithmetic loop, getppid()): how far their B/A
  strays from 1.00 is the noise of this run.
EOF
mark "BENCH-TABLE-END"
exit $rc
