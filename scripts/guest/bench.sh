#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ketw benchmark, run by /init inside the QEMU guest (make bench).
# Figures, not a test: a missed target is reported, not failed. A step
# that errors fails the script (and the run).
#
# Needs, besides what /init loads (ketw.ko and the samples):
#   /ketw/bench/ketw_bench.ko        the kernel half (module/bench/)
#   /ketw/bench/bench-lib.sh         what it shares with bench-compare.sh
#   /ketw/bench/ketw-drain-bench     the mmap/read() drain (tools/bench/)
#   /ketw/bench/ketw-uprov-bench     a user-space provider through libketw
#   /ketw/ketw                       the ketw tool (sessions)
#
# Prints one table between "@@KETW@@ BENCH-TABLE-BEGIN" and
# "@@KETW@@ BENCH-TABLE-END"; the host saves it to build/bench.txt.
#
# With ketwbench=compare on the kernel command line (make bench-compare)
# the guest runs bench-compare.sh instead: two commits' modules, turn
# about, in this one boot; with ketwbench=profile (make vm-profile),
# profile.sh: perf samples of the write path.
set -u

KETW=/ketw/ketw
DIR=/ketw/bench
SESSION=kbench
SIZES="8 64 256"
ROWS=/tmp/bench.rows
FIGS=/tmp/bench.figs
# Rounds of the interleaved write rows (pairs: ketw and ftrace run by
# run), and of the rows that need a session each (items, N sessions).
ROUNDS=9
SESSION_ROUNDS=3
# The N-sessions rows: N LOOP sessions, each of ketw start's default
# buffer (1 MiB per CPU), all enabling the bench provider. 64 of them on
# the guest's 2 CPUs take 128 MiB, within ketw's default cap (a quarter
# of the guest's 1 GiB) and KETW_MAX_SESSIONS (64).
NSESSIONS="1 4 16 64"
NSESSION_KB=1024

case " $(cat /proc/cmdline) " in
*" ketwbench=compare "*) exec sh $DIR/bench-compare.sh ;;
*" ketwbench=profile "*) exec sh $DIR/profile.sh ;;
esac
# shellcheck source=scripts/guest/bench-lib.sh
. $DIR/bench-lib.sh

# cmd ARGS: run one ketw_bench command; sets $res to its result line.
cmd() { bench_try "$@" || die "ketw_bench '$*' (see dmesg)"; }

# param NAME VALUE: set a ketw_bench parameter.
param() { echo "$2" >"$PARAMS/$1" || die "ketw_bench parameter $1=$2"; }

# keep NAME KEY: save the value of KEY=... in $res as figure NAME.
keep() {
	v=$(kv "$2")
	[ -n "$v" ] || die "no $2 in '$res'"
	echo "$1 $v" >>"$FIGS"
}

# keep_add NAME KEY: add the value of KEY=... in $res to the list NAME
# (one run per round).
keep_add() {
	v=$(kv "$2")
	[ -n "$v" ] || die "no $2 in '$res'"
	old=$(fig "$1")
	sed -i "/^$1 /d" "$FIGS"
	echo "$1 ${old:+$old,}$v" >>"$FIGS"
}

# keep_range NAME: figure NAME as "min,median,max" of a write or ftrace
# command's runs (its spread; never paired).
keep_range() {
	lo=$(kv min_ps) med=$(kv ps) hi=$(kv max_ps)
	[ -n "$lo" ] && [ -n "$med" ] && [ -n "$hi" ] || die "no min_ps, ps, max_ps in '$res'"
	echo "$1 $lo,$med,$hi" >>"$FIGS"
}

# fig NAME: a figure kept before.
fig() { sed -n "s/^$1 //p" "$FIGS"; }

# row MEASURE KETW REFERENCE SCALE OP TARGET [PAIRED [NSESS]]: one table
# row. KETW and REFERENCE are figures or lists of runs (their medians
# shown divided by SCALE, with their spreads); the ratio is the medians'
# KETW / REFERENCE; OP is <=, >= or - (no target: "info"). PAIRED "p":
# run i of KETW and of REFERENCE come from the same round, and the
# verdict also says in how many rounds that pair met the target. NSESS
# N: the ratio is the cost of each session beyond the first relative to
# one session, (KETW - REFERENCE) / (N - 1) / REFERENCE.
row() {
	printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
		"${7:-}" "${8:-}" >>"$ROWS"
}

session() {
	$KETW reset -s $SESSION >/dev/null 2>&1
	$KETW start -s $SESSION -b 4096 -P loop "$@" || die "ketw start $*"
}

: >"$ROWS"
: >"$FIGS"
insmod $DIR/ketw_bench.ko 2>&1
rc=$?
mark "INSMOD ketw_bench.ko rc=$rc"
[ $rc = 0 ] || die "insmod ketw_bench.ko"
echo "bench: $(grep -c ^processor /proc/cpuinfo) CPUs;" \
	"clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# What the system call floor below depends on: the CPU model's mitigations.
echo "bench: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //');" \
	"cmdline: $(cat /proc/cmdline)"
grep -H . /sys/devices/system/cpu/vulnerabilities/* 2>/dev/null |
	sed 's|.*/vulnerabilities/|bench: vulnerability |'

# No session runs: the bench provider's call sites are NOPs.
cmd disabled
keep dis_write write_ps
keep dis_empty empty_ps
keep dis_none none_ps

# The same for a user-space provider, through libketw.
uprov() {
	echo "bench: ketw-uprov-bench $*"
	out=$($DIR/ketw-uprov-bench "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/  /'
	[ $rc = 0 ] || die "ketw-uprov-bench $* exited $rc"
	res=$(echo "$out" | grep '^uprov-')
}
uprov
keep udis_write write_ps
keep udis_empty empty_ps
keep udis_none none_ps

cmd clock
keep clk_mono mono_ps
keep clk_local local_ps
keep clk_trace trace_ps
keep clk_cycles cycles_ps

# pairs_keep SUFFIX: the lists of a pairs command as figures ketwSUFFIX_S,
# ftraceSUFFIX_S, ftrace_hdrSUFFIX_S for each size S, and its reference
# loop's runs added to the figure ref.
pairs_keep() {
	for s in $SIZES; do
		keep "ketw$1_$s" "ketw_$s"
		keep "ftrace$1_$s" "ftrace_$s"
		keep "ftrace_hdr$1_$s" "ftrace_hdr_$s"
		keep_add ref "ref_$s"
	done
}

# pairs64_add NAME: a pairs 64 command's runs of ketw and of ftrace added
# to the lists NAME and NAME_f (for corrected below).
pairs64_add() {
	cmd pairs 64
	keep_add "$1" ketw_64
	keep_add "$1_f" ftrace_64
	keep_add ref ref_64
}

# corrected NAME FTRACE_MEDIAN: the runs of NAME, each scaled by the
# ftrace run it was mixed with: NAME_i * FTRACE_MEDIAN / NAME_f_i. Runs
# measured in different sessions, minutes apart, compare as if the host
# had been as busy during each.
corrected() {
	awk -v k="$(fig "$1")" -v f="$(fig "$1_f")" -v m="$2" 'BEGIN {
		n = split(k, a, ",")
		split(f, b, ",")
		for (i = 1; i <= n; i++)
			printf "%s%.0f", (i > 1 ? "," : ""), (b[i] > 0 ? a[i] * m / b[i] : 0)
	}'
}

# fmedian NAME...: the median of the ftrace runs of lists NAME...
fmedian() {
	_l=
	for _n in "$@"; do _l="$_l,$(fig "$_n"_f)"; done
	awk -v l="${_l#,}" "$BENCH_AWK"'BEGIN { printf "%.0f", lmed(l) }'
}

# A LOOP session of 4 MiB per CPU with the default clock (MONO): ketw and
# ftrace (of the same payload, and of as many bytes as ketw stores) and
# the reference loop by turns in chunks of 200 us in each run, sizes
# rotated from round to round.
session
param reps $ROUNDS
cmd pairs $SIZES
pairs_keep ""
param reps 5
uprov --enabled -s 64
keep uwrite_64 ps
# Its floor, in the same session: a null system call, a null ioctl, and
# the two write requests made directly.
uprov --floor -s 64
keep ufloor_syscall syscall_ps
keep ufloor_ioctl ioctl_ps
keep ufloor_uw user_write_ps
keep ufloor_uwv user_writev_ps
# The execution context in every record: the write without it, interleaved.
cmd context 64
keep ctx_64 runs
keep noctx_64 noctx_runs
keep ctx_cost_ps cost_ps
param reps 7
cmd scale 64
keep scale_one one_eps
keep scale_all all_eps
keep scale_one_best one_best
keep scale_all_best all_best
keep ncpus ncpus
# At about ftrace's 8-byte event rate: how scaling depends on the rate.
cmd scale 512
keep scale512_one_best one_best
keep scale512_all_best all_best
param reps 5
$KETW reset -s $SESSION || die "ketw reset"

# Each extended data item alone on the bench provider, 64 B payloads,
# against the same session without items ("none"), a session each, in
# SESSION_ROUNDS rounds, the order rotated from round to round; in each
# 3 mixed runs with ftrace's 64 B write, which corrects for the host's
# load (corrected above). The writers are kthreads: no user stack,
# and ketw_write() has no activity, so ustack and activity cost only the
# check that finds nothing to add.
ITEMS="stack ustack cputime progaddr pidns activity"
param reps 3
r=0
while [ $r -lt $SESSION_ROUNDS ]; do
	for it in $(rotate $r none $ITEMS); do
		if [ "$it" = none ]; then
			session -p ketw-bench
		else
			session -p "ketw-bench:$it"
		fi
		pairs64_add "ketw_item_$it"
		$KETW reset -s $SESSION || die "ketw reset"
	done
	r=$((r + 1))
done
param reps 5

# The same with the LOCAL clock (local_clock(), as cheap as ftrace's).
session -C local
param reps $ROUNDS
cmd pairs $SIZES
pairs_keep _local
param reps 5
$KETW reset -s $SESSION || die "ketw reset"

# One 64 B event taken by N LOOP sessions, N = 1, 4, 16, 64 (NSESSIONS),
# all on the bench provider: SESSION_ROUNDS rounds, N rising, then
# falling, then rising (sessions added and removed on the way), in each
# 3 mixed runs with ftrace's 64 B write (as the items), after a warm-up
# that wraps every session's buffer.
nsess=0
nsess_set() {
	while [ $nsess -lt "$1" ]; do
		nsess=$((nsess + 1))
		$KETW start -s "kn$nsess" -b $NSESSION_KB -P loop -p ketw-bench \
			>/dev/null || die "ketw start: session $nsess of $1"
	done
	while [ $nsess -gt "$1" ]; do
		$KETW reset -s "kn$nsess" || die "ketw reset kn$nsess"
		nsess=$((nsess - 1))
	done
}
param reps 3
param warm_kb $((NSESSION_KB * 3 / 2))
rev=
for n in $NSESSIONS; do rev="$n $rev"; done
r=0
while [ $r -lt $SESSION_ROUNDS ]; do
	order=$NSESSIONS
	[ $((r % 2)) = 0 ] || order=$rev
	for n in $order; do
		nsess_set "$n"
		param sessions "$n"
		pairs64_add "nsess_$n"
	done
	r=$((r + 1))
done
nsess_set 0
param sessions 1
param warm_kb 8192
param reps 5

# Before the first wrap: nothing is overwritten yet. Fresh 4 MiB buffers,
# no warm-up, 5 x 6000 records of 128 bytes (3.7 MiB), for both.
param iters 6000
param warm_kb 0
session
cmd write 64
keep_range ketw_fresh_64
$KETW reset -s $SESSION || die "ketw reset"
cmd ftrace 64
keep_range ftrace_fresh_64
param iters 200000
param warm_kb 8192

param reps 7
cmd ftrace-scale 64
keep fscale_one one_eps
keep fscale_all all_eps
keep fscale_one_best one_best
keep fscale_all_best all_best
cmd ftrace-scale 8
keep fscale8_one_best one_best
keep fscale8_all_best all_best
cmd cycles-scale 64
keep cscale_one one_eps
keep cscale_all all_eps
param reps 5

echo "bench: ketw-drain-bench"
out=$($DIR/ketw-drain-bench 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
[ $rc = 0 ] || die "ketw-drain-bench exited $rc"
res=$(echo "$out" | grep '^drain ')
keep drain_read_bps read_bps
keep drain_mmap_bps mmap_bps
keep drain_read_rps read_rps
keep drain_mmap_rps mmap_rps

rmmod ketw_bench 2>&1
rc=$?
mark "RMMOD ketw_bench.ko rc=$rc"
[ $rc = 0 ] || die "rmmod ketw_bench"

n=$(fig ncpus)
# Issue 27's targets: 8 B at most half of ftrace's write, larger
# payloads (which ketw copies 8 bytes a move) at most 0.4 of it.
for s in $SIZES; do
	t=0.4
	[ "$s" -gt 8 ] || t=0.5
	row "write, $s B payload (ns/event)" "$(fig "ketw_$s")" \
		"$(fig "ftrace_$s")" 1000 '<=' "$t" p
done
for s in $SIZES; do
	row "  same, ketw clock LOCAL, $s B" "$(fig "ketw_local_$s")" \
		"$(fig "ftrace_local_$s")" 1000 - - p
done
for s in $SIZES; do
	row "  same, ftrace payload $s+64 B" "$(fig "ketw_$s")" \
		"$(fig "ftrace_hdr_$s")" 1000 - - p
done
row "  same, 64 B, before the first wrap" "$(fig ketw_fresh_64)" \
	"$(fig ftrace_fresh_64)" 1000 - -
# shellcheck disable=SC2046 # the names are words
fm=$(fmedian ketw_item_none $(for it in $ITEMS; do echo "ketw_item_$it"; done))
for it in $ITEMS; do
	row "  64 B write + item $it vs none" "$(corrected "ketw_item_$it" "$fm")" \
		"$(corrected ketw_item_none "$fm")" 1000 - - p
done
# shellcheck disable=SC2046 # the names are words
fm=$(fmedian $(for ns in $NSESSIONS; do echo "nsess_$ns"; done))
echo "ketw_64_f $(fig ftrace_64)" >>"$FIGS"
row "64 B event taken by 1 LOOP session" "$(corrected nsess_1 "$fm")" \
	"$(corrected ketw_64 "$fm")" 1000 - -
for ns in $NSESSIONS; do
	[ "$ns" != 1 ] || continue
	row "  by $ns: each added session vs one" "$(corrected "nsess_$ns" "$fm")" \
		"$(corrected nsess_1 "$fm")" 1000 '<=' 0.5 p "$ns"
done
row "clock read ns, MONO vs ftrace's" "$(fig clk_mono)" "$(fig clk_trace)" 1000 - -
row "clock read ns, LOCAL vs ftrace's" "$(fig clk_local)" "$(fig clk_trace)" 1000 - -
row "clock read ns, bare TSC vs ftrace's" "$(fig clk_cycles)" "$(fig clk_trace)" 1000 - -
row "disabled call site vs none (ns/call)" "$(fig dis_write)" "$(fig dis_none)" 1000 '<=' 1.05
row "disabled call site vs empty call" "$(fig dis_write)" "$(fig dis_empty)" 1000 - -
row "libketw disabled site vs empty call" "$(fig udis_write)" "$(fig udis_empty)" 1000 '<=' 1
row "  libketw disabled site vs none" "$(fig udis_write)" "$(fig udis_none)" 1000 - -
row "libketw write 64 B vs kernel's (ns/ev)" "$(fig uwrite_64)" "$(fig ketw_64)" 1000 '<=' 3
row "  USER_WRITEV 64 B vs kernel's" "$(fig ufloor_uwv)" "$(fig ketw_64)" 1000 - -
row "  USER_WRITE 64 B (old) vs kernel's" "$(fig ufloor_uw)" "$(fig ketw_64)" 1000 - -
row "  null ioctl (ENOTTY) vs kernel's" "$(fig ufloor_ioctl)" "$(fig ketw_64)" 1000 - -
row "  null syscall (getppid) vs kernel's" "$(fig ufloor_syscall)" "$(fig ketw_64)" 1000 - -
row "write 64 B, context vs none (ns/ev)" "$(fig ctx_64)" "$(fig noctx_64)" 1000 '<=' 1.03 p
row "per-CPU Mev/s, $n writers vs 1" "$(($(fig scale_all_best) / n))" \
	"$(fig scale_one_best)" 1000000 '>=' 0.9
row "  ftrace per-CPU Mev/s, $n vs 1" "$(($(fig fscale_all_best) / n))" \
	"$(fig fscale_one_best)" 1000000 - -
row "  same, medians: ketw" "$(($(fig scale_all) / n))" \
	"$(fig scale_one)" 1000000 - -
row "  same, medians: ftrace" "$(($(fig fscale_all) / n))" \
	"$(fig fscale_one)" 1000000 - -
row "  ketw 512 B, near ftrace 8 B's rate" "$(($(fig scale512_all_best) / n))" \
	"$(fig scale512_one_best)" 1000000 - -
row "  ftrace 8 B" "$(($(fig fscale8_all_best) / n))" \
	"$(fig fscale8_one_best)" 1000000 - -
row "  TSC reads per CPU M/s, $n vs 1" "$(($(fig cscale_all) / n))" \
	"$(fig cscale_one)" 1000000 - -
row "drain MB/s, mmap vs read()" "$(fig drain_mmap_bps)" "$(fig drain_read_bps)" 1000000 '>=' 3
row "  drain Mrecords/s, mmap vs read()" "$(fig drain_mmap_rps)" \
	"$(fig drain_read_rps)" 1000000 - -

sh /ketw/bench-lttng.sh "$ROWS" /tmp/bench.lttng-note || die "bench-lttng.sh"

# The noise of this run: the reference loop's runs (arithmetic only,
# between the write runs of both pairs commands) and ftrace's 64 B runs.
noise=$(awk -v ref="$(fig ref)" -v ft="$(fig ftrace_64),$(fig ftrace_local_64)" \
	"$BENCH_AWK"'
BEGIN {
	r = lmin(ref) > 0 ? lmax(ref) / lmin(ref) : 0
	f = lmin(ft) > 0 ? lmax(ft) / lmin(ft) : 0
	w = r < 1.05 ? "quiet" : r < 1.2 ? "noisy" : "busy"
	printf "noise: a %s run (reference loop max/min %.2f over %d runs; ftrace 64 B max/min %.2f over %d)\n",
		w, r, split(ref, x, ","), f, split(ft, y, ",")
}')

mark "BENCH-TABLE-BEGIN"
awk -F'|' "$BENCH_AWK"'
BEGIN {
	line = "--------------------------------------------------------------------------------------------------------"
	printf "%-40s %9s %6s %9s %6s %7s %7s  %s\n", "measure", "ketw", "spread", "reference", "spread", "ratio", "target", "verdict"
	print line
}
{
	k = lmed($2); r = lmed($3)
	if ($8 != "")
		ratio = r > 0 ? (k - r) / ($8 - 1) / r : 0
	else
		ratio = r > 0 ? k / r : 0
	if ($5 == "-") { target = "-"; verdict = "info" }
	else {
		target = $5 " " $6
		verdict = meets(ratio, $5, $6) ? "met" : "not met"
		if ($7 == "p") {
			n = split($2, x, ",")
			if ($8 != "") {
				# each round: t(N) / t(1) against 1 + (N - 1) * target
				t = 1 + ($8 - 1) * $6
				m = paired($2, $3, $5, t)
			} else {
				m = paired($2, $3, $5, $6)
			}
			if (n > 1 && m >= 0) verdict = verdict sprintf(" (%d/%d rounds)", m, n)
		}
	}
	printf "%-40s %9s %6s %9s %6s %7.2f %7s  %s\n", $1, fmt(k / $4), pct(lspread($2)), fmt(r / $4), pct(lspread($3)), ratio, target, verdict
}
END {
	print line
}' "$ROWS"
cat <<EOF
$noise
figures: medians, spread (max - min) / median over their runs; verdicts
  from the medians, and "(k/n rounds)": in k of the n rounds the two
  sides measured side by side met the target on their own.
write: ketw_write() into a running LOOP session (64-byte header + payload,
  4 MiB/CPU, overwriting) vs ftrace's ring_buffer_lock_reserve() + memcpy +
  ring_buffer_unlock_commit() (4-byte header + payload, overwrite mode,
  4 MiB/CPU); one kthread on CPU 0, preemption off; $ROUNDS rounds, in
  each one mixed run per size: ketw, ftrace, ftrace N+64 and the
  reference loop by turns in chunks of about 200 us, 200 rounds of
  chunks after 25 of warm-up, the sizes' order rotated and the
  writes' reversed from round to round, after a warm-up that wraps both
  buffers. "ftrace payload N+64" stores as many bytes as ketw does.
  LOCAL: the same in a LOCAL session, with its own ftrace runs. Before
  the first wrap: fresh buffers, 5 x 6000 events (min..max as spread).
items: each in a session of its own, against one without ("none"),
  $SESSION_ROUNDS rounds in rotated order, 3 mixed runs with ftrace's
  64 B write in each; each run scaled by its ftrace run (x ftrace's
  median / ftrace's run), so that runs minutes apart compare.
sessions: one 64 B event taken by N LOOP sessions on the bench provider,
  each of 1 MiB/CPU (ketw start's default); the 1-session figure against
  the write above (4 MiB/CPU); for N > 1 the ratio is what each session
  beyond the first costs, relative to one session: (t(N) - t(1)) / (N - 1)
  / t(1). $SESSION_ROUNDS rounds, N rising, falling, rising; 3 mixed runs
  with ftrace's 64 B write in each, scaled as the items' are; a warm-up
  wraps every session's buffer first.
noise: the reference loop (a chain of multiplies, no memory, no clock)
  ran in every mixed run; its runs differ only by what the host did
  meanwhile. Quiet: max/min below 1.05; noisy: below 1.2; busy: 1.2 or
  more. The ratios hold on a busy host (the sides of a row share each
  run's time by turns); the absolute figures and their spreads do not.
disabled: ketw_write() with no session (static branch NOP) in a loop vs the
  loop with the call compiled out, and vs a call to an empty noinline
  function; fastest of 15 runs of 2000000 turns each.
context: a 64 B write through __ketw_write_bench() with and without
  computing the record's execution context (preempt_count(), the flags
  register, TIF_NEED_RESCHED): one function, so both sides have the same
  code layout (ketw_write() itself sits in a page of its own); medians
  of 15 mixed runs (the two by turns in chunks of about 200 us); the
  ratio is the context's cost (target: at most 3 %). TCG emulates PUSHF
  by rebuilding EFLAGS from its lazy condition codes, so this guest
  figure overstates it; native-bench above times the same
  ketw_record_context() natively, against ketw_ring_write() alone.
libketw: a user-space provider's ketw_write() with no session taking it
  (the enable page says so: two loads and a test, no system call) vs the
  loop calling an empty noinline function, and vs the loop alone; user
  space on CPU 0, fastest of 15 interleaved runs of 2000000 turns. Its
  write, enabled: KETW_IOC_USER_WRITEV of 64 B into the LOOP session, the
  median of 15 x 20000, vs the kernel's ketw_write() of 64 B (target
  3x, issue 27). Under it, medians of 15 interleaved runs of 20000: the
  same request made directly, the older KETW_IOC_USER_WRITE, an ioctl
  /dev/ketw_user refuses (ENOTTY) and getppid(): the floor of any system
  call here, on this kernel command line and the CPU model's mitigations
  (listed in the log above the table; no page-table isolation).
scaling: 64 B events/s per CPU with a writer on every CPU vs one alone
  (kthreads, 7 x 400 ms each, alternating; the best runs, as the vCPUs
  share the host's cores with everything else, and the medians). TSC
  reads: get_cycles() alone; the emulator serialises rdtsc across vCPUs,
  so every writer that stamps its records pays for it, more the faster
  it writes: compare ketw 512 B with ftrace 8 B, at about the same rate.
drain: FLUSH session, 100000 x 64 B events per CPU; read() into 64 KiB vs
  consuming in place through mmap; both read every record's header.
$(cat /tmp/bench.lttng-note)
TCG figures (no KVM; clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)): the ratios are what count.
EOF
mark "BENCH-TABLE-END"
