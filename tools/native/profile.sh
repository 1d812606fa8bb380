#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where one native ketw_ring_write() spends its time (make native-profile).
#
# perf samples the native bench's write loop (bench --loop SIZE: one
# writer, LOOP, 4 MiB wrapping, the MONO clock) on a timer (cpu-clock:
# virtual machines often have no cycle counter), and each sampled address
# goes to the part of the write that owns it: the innermost function of
# its inline chain that is one of the parts below (addr2line -i). A
# sample lands on the instruction after the one that stalled, so an
# RDTSCP's wait shows on the instruction after it, still in the clock.
#
#   tools/native/profile.sh [BENCH] [SIZE ...]
#   knobs: SECONDS (5 per size), FREQ (20000 samples/s)
#
# Prints one table per size: share of the samples, ns per event (the
# share of the loop's measured ns/event) and cycles at the TSC rate.
set -eu

BENCH=${1:-build/native/bench}
[ $# -gt 0 ] && shift
SIZES=${*:-8 64 256}
SECONDS=${SECONDS:-5}
FREQ=${FREQ:-20000}

for tool in perf addr2line objdump python3; do
	command -v $tool >/dev/null 2>&1 || {
		echo "profile: $tool not found (perf: apt-get install linux-perf)" >&2
		exit 2
	}
done
[ -x "$BENCH" ] || { echo "profile: $BENCH not built (make -C tools/native)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

parts=$(dirname "$0")/../../scripts/profile-parts.txt
mapper=$(dirname "$0")/../../scripts/profile-parts.py

for size in $SIZES; do
	perf record -q -e cpu-clock -F "$FREQ" -o "$tmp/data" -- \
		"$BENCH" --loop "$size" --seconds "$SECONDS" >"$tmp/out" 2>"$tmp/err" || {
		echo "profile: perf record failed: $(head -3 "$tmp/err")" >&2
		exit 1
	}
	writes=$(sed -n 's/^bench: \([0-9]*\) writes.*/\1/p' "$tmp/out")
	ghz=$(sed -n 's/.*, \([0-9.]*\) GHz TSC/\1/p' "$tmp/out")
	ns=$(awk -v s="$SECONDS" -v w="$writes" 'BEGIN { printf "%.3f", s * 1e9 / w }')
	perf script -i "$tmp/data" -F ip,sym,symoff,dso 2>/dev/null |
		awk '{ print $2, $3 }' | sort | uniq -c |
		python3 "$mapper" --binary "$BENCH" --parts "$parts" --dso "/$(basename "$BENCH"))" \
			--ns "$ns" --ghz "$ghz" \
			--title "ketw_ring_write(), $size B payload: $ns ns an event under perf"
	echo
done
cat <<'EOF'
parts: clock = ketw_clock_mono() (RDTSCP and the conversion); reserve =
  rb_write()'s own code (committing count, reserve word, room check, the
  cmpxchg, sequence number); order = rb_note_ts() (last_ts, kept against
  nested writers); loop = LOOP's release and scan; header = the header's
  words and the written/truncated counters; copy = the payload;
  commit = rb_end() and rb_wakeup() (publishing, the nesting hand-off);
  call = the function's entry and exit.
EOF
