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

for tool in perf addr2line nm python3; do
	command -v $tool >/dev/null 2>&1 || {
		echo "profile: $tool not found (perf: apt-get install linux-perf)" >&2
		exit 2
	}
done
[ -x "$BENCH" ] || { echo "profile: $BENCH not built (make -C tools/native)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The owner of each part, innermost first wins.
cat >"$tmp/parts" <<'EOF'
ketw_clock_mono clock
rb_clock clock
rb_event_time clock
ketw_ring_copy copy
rb_copy copy
rb_words header
rb_pair header
rb_word0_record header
rb_fill_commit header
rb_end commit
rb_wakeup commit
rb_loop_release loop
rb_loop_release_slow loop
rb_loop_scan loop
rb_loop_scan_from loop
rb_loop_walk loop
rb_loop_claim loop
rb_loop_count loop
rb_note_ts order
rb_no_room reserve
rb_widen_seq reserve
rb_write reserve
rb_write_slow reserve
ketw_ring_write call
EOF

for size in $SIZES; do
	perf record -q -e cpu-clock -F "$FREQ" -o "$tmp/data" -- \
		"$BENCH" --loop "$size" --seconds "$SECONDS" >"$tmp/out" 2>"$tmp/err" || {
		echo "profile: perf record failed: $(head -3 "$tmp/err")" >&2
		exit 1
	}
	writes=$(sed -n 's/^bench: \([0-9]*\) writes.*/\1/p' "$tmp/out")
	ghz=$(sed -n 's/.*, \([0-9.]*\) GHz TSC/\1/p' "$tmp/out")
	perf script -i "$tmp/data" -F ip,sym,symoff,dso 2>/dev/null >"$tmp/script"
	nm "$BENCH" >"$tmp/nm"
	python3 - "$BENCH" "$tmp" "$writes" "$SECONDS" "$ghz" "$size" <<'PY'
import collections, subprocess, sys
bench, tmp, writes, secs, ghz, size = sys.argv[1:]
owner = dict(l.split() for l in open(tmp + '/parts'))
syms = {}
for l in open(tmp + '/nm'):
    f = l.split()
    if len(f) == 3 and f[1] in 'tT':
        syms[f[2]] = int(f[0], 16)
cnt = collections.Counter()
for l in open(tmp + '/script'):
    f = l.split()
    if len(f) < 3 or '+0x' not in f[1] or not f[2].endswith('/bench)'):
        continue
    name, off = f[1].split('+')
    if name in syms:
        cnt[syms[name] + int(off, 16)] += 1
addrs = sorted(cnt)
out = subprocess.run(['addr2line', '-i', '-f', '-a', '-e', bench],
                     input='\n'.join('0x%x' % a for a in addrs),
                     capture_output=True, text=True).stdout.splitlines()
part, cur, fn = {}, None, False
for l in out:
    if l.startswith('0x'):
        cur = int(l, 16); part[cur] = None; fn = True
    elif fn:
        if part[cur] is None and l in owner:
            part[cur] = owner[l]
        fn = False
    else:
        fn = True
s = collections.Counter()
for a, n in cnt.items():
    s[part.get(a) or 'other'] += n
tot = sum(s.values())
nsev = float(secs) * 1e9 / int(writes)
print('ketw_ring_write(), %s B payload: %.1f ns an event under perf (%d samples)'
      % (size, nsev, tot))
print('  %-10s %7s %8s %8s' % ('part', 'share', 'ns', 'cycles'))
for p in 'clock reserve order loop header copy commit call other'.split():
    if p in s:
        sh = s[p] / tot
        print('  %-10s %6.1f%% %8.1f %8.0f' % (p, 100 * sh, nsev * sh,
                                               nsev * sh * float(ghz)))
PY
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
