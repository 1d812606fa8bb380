#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the ketw QEMU guest and judge what it printed.
#
#   scripts/run-vm.sh check|demo|bench|lttng|shell
#
# Environment (the top Makefile sets the first two):
#   VMLINUZ       guest kernel image (required)
#   INITRD        initramfs from scripts/mkinitramfs.sh (required)
#   VM_DIR        where console.log and dmesg.txt go (default build/vm)
#   VM_TIMEOUT    seconds until the guest counts as hung (default 600)
#   TEST_TIMEOUT  seconds each test binary may run in the guest (default 300)
#   VM_ACCEL      QEMU accelerator (default: tcg,thread=single, but tcg
#                 for bench; KVM hangs on some hosts)
#   VM_CPU VM_SMP VM_MEM   default max, 2, 1G
#   VM_DEBUG      kernel debug options (default: slub_debug=FZPU
#                 page_poison=1; /init then validates every slab cache)
#   VM_APPEND     extra kernel command line words
#   VM_QUIET=1    do not echo the console while the guest runs
#   VM_QEMU_EXTRA more QEMU arguments, split on spaces (a monitor socket
#                 to look at a hung guest: -monitor unix:PATH,server,nowait)
#   DMESG_ALLOW   extended regex of dmesg lines that are not failures
#   KCSAN_MODULES awk regex (as -v sees it, so '\\[ketw'): fail only on
#                 KCSAN reports whose stacks match it
#   BENCH_OUT     bench: where the table goes (default build/bench.txt)
#   KETW_TOOL     check: the ketw tool that listens on the guest's second
#                 serial port (ttyS1, a pipe chardev) and collects what
#                 the guest streams there into VM_DIR/serial/; the guest
#                 prints digests of what it sent (SERIAL-DIGEST lines),
#                 which are compared here with the files (unset: no
#                 second port)
#   DEMO_OUT      demo: where the files the guest sends go (default
#                 build/demo): a second serial port, ttyS1 in the guest,
#                 writes to VM_DIR/export.tar; the demo sends a tar there
#                 and prints "@@KETW@@ EXPORT FILE..."; lttng (make
#                 lttng-test: scripts/guest/lttng-merge.sh) likewise
set -euo pipefail

mode=${1:?usage: $0 check|demo|bench|lttng|shell}
top=$(cd "$(dirname "$0")/.." && pwd)
: "${VMLINUZ:?set VMLINUZ to the guest kernel}"
: "${INITRD:?set INITRD to the initramfs}"
VM_DIR=${VM_DIR:-$top/build/vm}
VM_TIMEOUT=${VM_TIMEOUT:-600}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
DMESG_ALLOW=${DMESG_ALLOW:-'^$'}
# Lines that match DMESG_BAD but report no problem: a debug kernel's
# banners (DEBUG_OBJECTS_RCU_HEAD says it checks for use-after-free).
DMESG_BENIGN='RCU callback double-/use-after-free debug is enabled'

# Kernel log lines that fail a run. "module verification failed" and
# "loading out-of-tree module taints kernel" match none of these.
# The kernel echoes its command line, whose knobs (make fuzz-kernel's
# sysctl.kernel.panic_on_rcu_stall=1, ...) may look like a report.
DMESG_ECHO='(^|\] )((Kernel c|C)ommand line: |Unknown kernel command line parameters )'
DMESG_BAD='\bBUG\b|Oops|\bWARNING\b|general protection|KASAN|UBSAN|Call Trace|Kernel panic|kernel BUG|soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than|refcount_t:|list_(add|del) corruption|stack-protector|slab-out-of-bounds|use-after-free|double free|sleeping function called'
# Taint flags that are expected: O (out-of-tree module, 1<<12) and
# E (unsigned module, 1<<13). Anything else (W, D, L, B, ...) fails.
TAINT_OK=$(((1 << 12) | (1 << 13)))

for f in "$VMLINUZ" "$INITRD"; do
	[ -r "$f" ] || { echo "run-vm: cannot read $f" >&2; exit 1; }
done
mkdir -p "$VM_DIR"
log=$VM_DIR/console.log
rm -f "$log" "$VM_DIR/dmesg.txt" "$VM_DIR/result"

# One host thread runs the vCPUs in turn (thread=single), except for the
# bench, whose scaling figures need a thread per vCPU (MTTCG). Under
# MTTCG, a vCPU running through a call site while another patches its
# static branch (text_poke_bp) could be left spinning at the site for
# good, NOP in memory: soft lockups in kfuzz_fs, then in lifetime_test
# after it, every run; with thread=single none, and the suite takes as
# long. Races between CPUs at full speed are tools/native's job.
if [ -z "${VM_ACCEL:-}" ]; then
	VM_ACCEL=tcg,thread=single
	[ "$mode" != bench ] || VM_ACCEL=tcg
fi
# check: the guest's second serial port is a pipe to ketw listen here
# (libketw_stream_test streams a session over it; ketwserial tells it so).
serial_on=false
serial_arg=
if [ "$mode" = check ] && [ -n "${KETW_TOOL:-}" ] && [ -x "${KETW_TOOL:-}" ]; then
	serial_on=true
	serial_arg=ketwserial=1
fi
qemu=(qemu-system-x86_64 -accel "$VM_ACCEL" -cpu "${VM_CPU:-max}"
	-smp "${VM_SMP:-2}" -m "${VM_MEM:-1G}" -no-reboot -nodefaults
	-no-user-config -display none -kernel "$VMLINUZ" -initrd "$INITRD"
	-append "console=ttyS0,115200 panic=-1 quiet ketwmode=$mode ketwtimeout=$TEST_TIMEOUT ${VM_DEBUG-slub_debug=FZPU page_poison=1} $serial_arg ${VM_APPEND:-}")
# shellcheck disable=SC2206 # split on purpose
qemu+=(${VM_QEMU_EXTRA:-})

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

serial1=()
lpid=
sdir=$VM_DIR/serial
if $serial_on; then
	fifo=$VM_DIR/ttyS1
	rm -rf "$sdir" "$fifo.in" "$fifo.out"
	mkdir -p "$sdir"
	mkfifo "$fifo.in" "$fifo.out"
	"$KETW_TOOL" listen --serial "$fifo.out" -o "$sdir" >"$VM_DIR/serial-listen.log" 2>&1 &
	lpid=$!
	serial1=(-chardev "pipe,id=ketwser1,path=$fifo" -serial chardev:ketwser1)
fi
stop_listener() {
	[ -n "$lpid" ] || return 0
	kill -TERM "$lpid" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true
	lpid=
}
trap stop_listener EXIT

echo "  QEMU    $mode: $(basename "$VMLINUZ"), $VM_ACCEL, timeout ${VM_TIMEOUT}s, log $log"
start=$(date +%s)
: >"$log"
# The console is ttyS0; the demo's files come out through ttyS1, and
# check's stream to the host's ketw listen (serial1, above).
if [ "$mode" = demo ] || [ "$mode" = lttng ]; then
	rm -f "$VM_DIR/export.tar"
	serial1=(-serial "file:$VM_DIR/export.tar")
fi
timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" -serial "file:$log" "${serial1[@]}" </dev/null &
qpid=$!
if [ "${VM_QUIET:-0}" != 1 ]; then
	# Echo the console up to the kernel log dump, which is judged below.
	tail -n +1 -f --pid=$qpid "$log" |
		sed -u -e 's/\r$//' -e '/^@@KETW@@ DMESG-BEGIN/,/^@@KETW@@ DMESG-END/d' &
	tpid=$!
fi
qrc=0
wait $qpid || qrc=$?
[ -n "${tpid:-}" ] && wait "$tpid" 2>/dev/null || true
elapsed=$(($(date +%s) - start))

# ---- judge ---------------------------------------------------------------
con=$VM_DIR/console.txt
tr -d '\r' <"$log" >"$con"
sed -n '/^@@KETW@@ DMESG-BEGIN/,/^@@KETW@@ DMESG-END/p' "$con" |
	sed '1d;$d' >"$VM_DIR/dmesg.txt"

problems=()
fail() { problems+=("$*"); }

done=1
if ! grep -q '^@@KETW@@ DONE' "$con"; then
	done=0
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		fail "guest hung: no DONE marker within VM_TIMEOUT=${VM_TIMEOUT}s"
	else
		fail "guest died before the DONE marker (qemu exit $qrc; kernel panic?)"
	fi
fi

while read -r _ _ name rc; do
	[ "$rc" = rc=0 ] || fail "insmod $name failed ($rc)"
done < <(grep '^@@KETW@@ INSMOD ' "$con" || true)
while read -r _ _ name rc; do
	[ "$rc" = rc=0 ] || fail "rmmod $name failed ($rc)"
done < <(grep '^@@KETW@@ RMMOD ' "$con" || true)

taint=$(sed -n 's/^@@KETW@@ TAINT \([0-9]*\)$/\1/p' "$con")
if [ -n "$taint" ] && [ $((taint & ~TAINT_OK)) -ne 0 ]; then
	fail "kernel tainted: $taint (see Documentation/admin-guide/tainted-kernels.rst)"
fi
# Kernel lines: the dmesg dump, and whatever printk put on the console
# (all a guest that panicked leaves).
# Every line of the dump is the kernel's (a kernel without PRINTK_TIME
# prints no timestamps); on the console, only timestamped lines are.
klog=$VM_DIR/dmesg.txt
klines=(cat "$klog")
if [ $done = 0 ]; then
	klog=$con
	klines=(grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$klog")
fi
# KCSAN_MODULES (see above): a KCSAN kernel reports data
# races anywhere in the kernel; only a report whose stacks show those
# modules' code fails the run. The others are counted.
if [ -n "${KCSAN_MODULES:-}" ]; then
	kcsan=$("${klines[@]}" | awk -v mods="$KCSAN_MODULES" '
		/BUG: KCSAN:/ { inr = 1; head = $0; hit = 0; n++; next }
		inr && /^(\[ *[0-9.]+\] )?=+$/ { if (hit) print head; inr = 0; next }
		inr && $0 ~ mods { hit = 1 }
		END { print "@@total " n + 0 }')
	kcsan_total=$(sed -n 's/^@@total //p' <<<"$kcsan")
	kcsan_ours=$(grep -v '^@@total ' <<<"$kcsan" || true)
	echo "  KCSAN   $kcsan_total report(s) in the kernel log, $(grep -c . <<<"$kcsan_ours" || true) in ketw's modules"
	[ -z "$kcsan_ours" ] || fail "KCSAN reports a data race in ketw: $(head -n1 <<<"$kcsan_ours")"
	DMESG_ALLOW="$DMESG_ALLOW|BUG: KCSAN:"
fi
kbad=$("${klines[@]}" | grep -Ev "$DMESG_ECHO" | grep -E "$DMESG_BAD" |
	grep -Ev "$DMESG_ALLOW" | grep -Fv "$DMESG_BENIGN" || true)
[ -z "$kbad" ] || fail "kernel log shows a problem: $(head -n1 <<<"$kbad")"

# TAP: count the harness's "ok N" / "not ok N" lines inside each
# TEST-BEGIN/TEST-END block; "ok N ... # SKIP" is a skip.
passed=0 failed=0 skipped=0
if [ "$mode" = check ]; then
	tap=$(awk '
		/^@@KETW@@ TEST-BEGIN / { name = $3; n = ok = bad = skip = 0; next }
		/^@@KETW@@ TEST-END / {
			rc = $4; sub(/^rc=/, "", rc)
			print name, rc, n, ok, bad, skip; name = ""; next
		}
		name == "" { next }
		/^not ok [0-9]+/ { n++; bad++; next }
		/^ok [0-9]+.*# (SKIP|skip)/ { n++; skip++; next }
		/^ok [0-9]+/ { n++; ok++; next }
		END { if (name != "") print name, "unfinished", n, ok, bad, skip }
	' "$con")
	while read -r name rc n ok bad skip; do
		[ -n "$name" ] || continue
		passed=$((passed + ok)) failed=$((failed + bad)) skipped=$((skipped + skip))
		if [ "$rc" = unfinished ]; then
			fail "test $name did not finish"
			failed=$((failed + 1))
		elif [ "$rc" != 0 ]; then
			why="$bad of $n cases failed"
			[ "$rc" != 137 ] || why="$why; killed after TEST_TIMEOUT=${TEST_TIMEOUT}s?"
			fail "test $name exited with $rc ($why)"
			[ "$bad" -gt 0 ] || failed=$((failed + 1))
		fi
		[ "$bad" -eq 0 ] || [ "$rc" != 0 ] ||
			fail "test $name printed 'not ok' but exited 0"
	done <<<"$tap"
	if [ $done = 1 ]; then
		[ -n "$tap" ] || fail "no test binary ran (none in /ketw/tests?)"
		[ $((passed + failed + skipped)) -gt 0 ] || fail "no TAP test case ran"
	fi
elif [ "$mode" = demo ] || [ "$mode" = lttng ]; then
	tag=$(tr a-z A-Z <<<"$mode")
	rc=$(sed -n "s/^@@KETW@@ $tag-END rc=//p" "$con")
	[ "$rc" = 0 ] || fail "$mode script failed (rc=${rc:-none})"
	demo_files=$(sed -n 's/^@@KETW@@ EXPORT //p' "$con")
	demo_out=${DEMO_OUT:-$top/build/demo}
	if [ -n "$demo_files" ]; then
		rm -rf "$demo_out"
		mkdir -p "$demo_out"
		tar -C "$demo_out" -xf "$VM_DIR/export.tar" 2>/dev/null ||
			fail "cannot unpack the files the guest sent ($VM_DIR/export.tar)"
		for f in $demo_files; do
			[ -s "$demo_out/$f" ] || fail "the guest did not send $f"
		done
	fi
elif [ "$mode" = bench ]; then
	rc=$(sed -n 's/^@@KETW@@ BENCH-END rc=//p' "$con")
	[ "$rc" = 0 ] || fail "bench script failed (rc=${rc:-none})"
	bench_out=${BENCH_OUT:-$top/build/bench.txt}
	sed -n '/^@@KETW@@ BENCH-TABLE-BEGIN/,/^@@KETW@@ BENCH-TABLE-END/p' "$con" |
		sed '1d;$d' >"$bench_out"
	[ -s "$bench_out" ] || fail "bench printed no table"
fi

# The streams the guest sent over its second serial port: the host's
# file of each must hold the records the guest kept, line for line.
stop_listener
while read -r _ _ name md5 nrec; do
	f=$(ls "$sdir"/*-"$name"-*.ketw 2>/dev/null | grep -v '\.[0-9]*\.ketw$' | head -n 1 || true)
	if [ -z "$f" ]; then
		fail "serial: no file of stream '$name' from the guest's ttyS1 (see $VM_DIR/serial-listen.log)"
		continue
	fi
	hmd5=$("$KETW_TOOL" report "$f" 2>/dev/null | awk '/^  cpu=/{p=1} p' | md5sum | cut -d' ' -f1)
	hrec=$("$KETW_TOOL" report -H "$f" 2>/dev/null | awk '$1 == "all" { print $2 }')
	if [ "$hmd5" = "$md5" ] && [ "$hrec" = "$nrec" ]; then
		echo "  SERIAL  $name: $nrec records over the guest's ttyS1; the host's file matches the guest's, record for record"
	else
		fail "serial: $f ($hrec records, $hmd5) is not what the guest sent ($nrec records, $md5)"
	fi
done < <(grep '^@@KETW@@ SERIAL-DIGEST ' "$con" 2>/dev/null || true)

harness_fail=${#problems[@]}
echo
if [ "$harness_fail" -ne 0 ]; then
	echo "==== FAILED ($mode): ${#problems[@]} problem(s)"
	printf '  - %s\n' "${problems[@]}"
	if [ "$mode" = demo ] || [ "$mode" = lttng ]; then
		echo "---- $mode output"
		sed -n "/^@@KETW@@ $tag-BEGIN/,/^@@KETW@@ $tag-END/p" "$con"
	elif [ "$mode" = bench ]; then
		echo "---- bench output"
		sed -n '/^@@KETW@@ BENCH-BEGIN/,/^@@KETW@@ BENCH-END/p' "$con"
	elif [ "$mode" = check ]; then
		awk '/^@@KETW@@ TEST-BEGIN /{name=$3; buf=""} name!=""{buf=buf $0 "\n"}
		     /^@@KETW@@ TEST-END / && $4 != "rc=0" {printf "---- output of %s\n%s", name, buf}
		     /^@@KETW@@ TEST-END /{name=""}' "$con"
	fi
	if [ -n "$kbad" ]; then
		first=$(grep -nF -- "$(head -n1 <<<"$kbad")" "$klog" | head -n1 | cut -d: -f1)
		echo "---- kernel log from the first problem (all in $klog)"
		tail -n +$((first > 5 ? first - 5 : 1)) "$klog" | head -n 60 || true
	elif [ -s "$VM_DIR/dmesg.txt" ]; then
		echo "---- dmesg (last 60 lines; all in $VM_DIR/dmesg.txt)"
		tail -n 60 "$VM_DIR/dmesg.txt"
	else
		echo "---- console (last 60 lines; all in $con)"
		tail -n 60 "$con"
	fi
	# A failure no TAP line counts (module load, kernel log, hang) is one.
	[ "$failed" -gt 0 ] || failed=1
fi
if [ "$mode" = demo ] && [ "$harness_fail" -eq 0 ] && [ -n "${demo_files:-}" ]; then
	echo "==== the demo's viewers (Documentation/ketw-viewers.rst): in $demo_out/"
	echo "  $demo_out/timeline.svg   the timeline: open it in a web browser"
	echo "  $demo_out/trace.json     Chrome trace: open it in https://ui.perfetto.dev or chrome://tracing"
	echo "  $demo_out/view.ketw      the trace: babeltrace2 --plugin-path $top/tools/babeltrace2 $demo_out/view.ketw"
fi
if [ "$mode" = bench ] && [ -s "${bench_out:-}" ]; then
	echo "==== ketw bench (TCG; saved to $bench_out)"
	cat "$bench_out"
fi
echo "guest boot: $(sed -n 's/^@@KETW@@ BOOT .*uptime=//p' "$con")s to /init, run: ${elapsed}s wall"
if [ "$mode" = check ] || [ "$harness_fail" -ne 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
	# For make check's total over its guest runs.
	echo "$passed $failed $skipped" >"$VM_DIR/result"
fi
[ "$harness_fail" -eq 0 ]
