#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make vm-profile: where a write's time goes in the QEMU guest, where
# make bench measures. perf in the guest samples the bench CPU while
# ketw_bench writes into N LOOP sessions (scripts/guest/profile.sh);
# here each sample goes to the part of the write that owns it
# (scripts/profile-parts.py, with module/ketw.ko's debug information).
#
#   scripts/vm-profile.sh
#
# Environment: VMLINUZ (make's scripts/kernel.sh), BUILD (default
# build/), BENCH_APPEND (default tsc=reliable, as make bench),
# PROFILE_SIZES (default 8,64), PROFILE_SESSIONS (default 1,16),
# PROFILE_EVENTS (default 1000000), and run-vm.sh's VM_* knobs. Needs
# the host's perf (apt-get install linux-perf), which goes into the
# guest image; module/ketw.ko, module/bench/ketw_bench.ko and the tool
# built (make module tools).
#
# perf in the guest names module code as the kernel's ([kernel.kallsyms]):
# a sample is ketw.ko's when its symbol is one of ketw.ko's .text.
#
# Under TCG a sample lands where the guest next checks for interrupts:
# the first instruction of the next translation block. A block's time
# therefore shows at the start of the block after it, and a part's
# share is right to within its neighbours' edges.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
: "${VMLINUZ:?set VMLINUZ (make vm-profile does)}"
sizes=${PROFILE_SIZES:-8,64}
sessions=${PROFILE_SESSIONS:-1,16}
events=${PROFILE_EVENTS:-1000000}
for v in "$sizes" "$sessions"; do
	case $v in
	'' | *[!0-9,]* | ,* | *,) echo "vm-profile: '$v' is not a list of numbers" >&2; exit 2 ;;
	esac
done
case $events in
'' | *[!0-9]* | 0) echo "vm-profile: PROFILE_EVENTS=$events is not a number of events" >&2; exit 2 ;;
esac
for tool in perf addr2line objdump python3; do
	command -v $tool >/dev/null 2>&1 || {
		echo "vm-profile: $tool not found (perf: apt-get install linux-perf)" >&2
		exit 2
	}
done
ko=$top/module/ketw.ko
for f in "$ko" "$top/module/bench/ketw_bench.ko" "$top/tools/ketw/ketw"; do
	[ -f "$f" ] || { echo "vm-profile: no $f (make module tools)" >&2; exit 2; }
done

initrd=$BUILD/initramfs-profile.cpio.gz
raw=$BUILD/vm-profile.raw
KETW_TESTS_DIR='' KETW_STAGE='' EXTRA_BINS=perf \
	KETW_BENCH_FILES="$top/module/bench/ketw_bench.ko $top/scripts/guest/bench-lib.sh $top/scripts/guest/profile.sh" \
	"$top/scripts/mkinitramfs.sh" "$initrd"
VMLINUZ=$VMLINUZ INITRD=$initrd VM_DIR=$BUILD/vm-profile VM_DEBUG='' \
	BENCH_OUT=$raw VM_QUIET=1 \
	VM_APPEND="${BENCH_APPEND-tsc=reliable} ketwbench=profile ketwprofsizes=$sizes ketwprofsessions=$sessions ketwprofevents=$events ${VM_APPEND:-}" \
	"$top/scripts/run-vm.sh" bench >"$BUILD/vm-profile.log" 2>&1 || {
	tail -n 40 "$BUILD/vm-profile.log"
	echo "vm-profile: the guest run failed (all in $BUILD/vm-profile.log)" >&2
	exit 1
}

# One table per run: its samples are the SAMPLE lines up to the next RUN.
runs=$(grep -c '^RUN ' "$raw" || true)
[ "$runs" -gt 0 ] || { echo "vm-profile: the guest reported no run ($raw)" >&2; exit 1; }
for i in $(seq 1 "$runs"); do
	f=$(awk -v i="$i" '/^RUN /{ n++ } n == i' "$raw")
	# shellcheck disable=SC2046 # four numbers
	set -- $(sed -n 's/^RUN sessions=\([0-9]*\) size=\([0-9]*\) ps=\([0-9]*\) plain_ps=\([0-9]*\).*/\1 \2 \3 \4/p' <<<"$f")
	[ $# = 4 ] || { echo "vm-profile: bad run line in $raw" >&2; exit 1; }
	ns=$(awk -v p="$3" 'BEGIN { printf "%.1f", p / 1000 }')
	plain=$(awk -v p="$4" 'BEGIN { printf "%.1f", p / 1000 }')
	sed -n 's/^SAMPLE //p' <<<"$f" |
		python3 "$top/scripts/profile-parts.py" --binary "$ko" \
			--parts "$top/scripts/profile-parts.txt" --dso '' \
			--ns "$ns" --title "guest write, $1 session(s), $2 B payload: $ns ns an event under perf ($plain without)"
	echo
done | tee "$BUILD/vm-profile.txt"
cat <<'EOF'
parts (Documentation/ketw-testing.rst, "Profiling in the guest"): context =
  the caller's context bits (preempt count, interrupts, need-resched);
  filter = the sessions' level, keyword and event-set tests; dispatch =
  ketw_write()'s walk of the sessions; the rest as make native-profile's.
  "outside": samples in other code, by symbol (bench_chunk is
  ketw_bench's loop). Saved to build/vm-profile.txt.
EOF
