#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
make lttng-test, on the host: a .ketw file and an LTTng kernel trace of
the same guest boot (scripts/guest/lttng-merge.sh) merged on one timeline
by babeltrace2's own muxer:

    babeltrace2 --plugin-path=PLUGIN_DIR DIR/trace.ketw DIR/lttng/kernel

The guest wrote, in rounds r = 1..R, r to /proc/lttng-test-filter-event
(r LTTng lttng_test_filter_event events, intfield 0..r-1), then r to
ketw_sample's emit_filter (r ketw-sample:filter events, intfield
0..r-1), with sched_switch in LTTng's trace and ketw's rundown around
them. Checked:
  - the merge holds every event of each trace alone, and its times never
    go back;
  - the filter events of the two come in runs of 1, 1, 2, 2, ... R, R,
    alternating, LTTng first, each run's intfields 0..r-1: the order they
    happened in, which only holds if ketw's times (CLOCK_MONOTONIC plus
    the header's offset to the epoch) and LTTng's (its monotonic clock
    class, offset to the epoch) are on the same base;
  - each ketw run begins within a second after the LTTng run before it;
  - LTTng's sched_switch events fall between ketw's first and last events
    too: the two traces interleave, they are not one after the other.
Its last line: "lttng-test: N passed, M failed".
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btparse  # noqa: E402

BT_TEXT = ['--clock-seconds', '--clock-gmt', '--no-delta', '--names=all',
           '--fields=all']
LTTNG_EV = 'lttng_test_filter_event'
KETW_EV = 'ketw-sample:filter'

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('  FAIL  ' + what)
    return ok


def events(text):
    """(ts_ns, name, intfield or None) for each event line."""
    out = []
    for line in text.splitlines():
        m = re.match(r'timestamp = (-?[0-9.]+), .*?, name = ([^,]+), ', line)
        if not m:
            continue
        f = re.search(r'[{,] intfield = (-?[0-9]+)', line)
        out.append((btparse.seconds_ns(m.group(1)), m.group(2),
                    int(f.group(1)) if f else None))
    return out


def bt2(plugin_dir, *args):
    r = subprocess.run(['babeltrace2', '--plugin-path=' + plugin_dir] +
                       list(args) + BT_TEXT, capture_output=True, text=True)
    if r.returncode:
        sys.exit('lttng-test: babeltrace2 %s failed:\n%s' % (' '.join(args), r.stderr))
    return events(r.stdout)


def runs(evs):
    """The filter events as runs: [(source, [intfield, ...]), ...]."""
    out = []
    for _, name, i in evs:
        src = {LTTNG_EV: 'LTTng', KETW_EV: 'ketw'}.get(name)
        if not src:
            continue
        if out and out[-1][0] == src:
            out[-1][1].append(i)
        else:
            out.append((src, [i]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--plugin-dir', required=True)
    ap.add_argument('--rounds', type=int, default=4)
    ap.add_argument('dir')
    a = ap.parse_args()
    ketw = os.path.join(a.dir, 'trace.ketw')
    kernel = os.path.join(a.dir, 'lttng', 'kernel')
    for p in (ketw, os.path.join(kernel, 'metadata')):
        if not os.path.exists(p):
            sys.exit('lttng-test: no %s (did the guest send it?)' % p)

    k = bt2(a.plugin_dir, ketw)
    lt = bt2(a.plugin_dir, kernel)
    m = bt2(a.plugin_dir, ketw, kernel)
    print('  babeltrace2 --plugin-path=%s %s %s: %d events (ketw %d, LTTng %d)'
          % (a.plugin_dir, ketw, kernel, len(m), len(k), len(lt)))
    check(len(k) > 0 and len(lt) > 0, 'both traces have events')
    check(len(m) == len(k) + len(lt),
          'the merge has %d events, not ketw %d + LTTng %d' % (len(m), len(k), len(lt)))
    times = [e[0] for e in m]
    check(times == sorted(times), 'the merge\'s times go back')
    check([e for e in m if e[1].startswith('ketw')] ==
          [e for e in k if e[1].startswith('ketw')], 'ketw\'s events, in their order, in the merge')

    want = []
    for r in range(1, a.rounds + 1):
        want += [('LTTng', list(range(r))), ('ketw', list(range(r)))]
    got = runs(m)
    check(got == want, 'the filter events\' runs: %s, not %s' % (got, want))

    # Each ketw run starts soon after the LTTng run before it.
    fil = [e for e in m if e[1] in (LTTNG_EV, KETW_EV)]
    gaps = [b[0] - a_[0] for a_, b in zip(fil, fil[1:])
            if a_[1] == LTTNG_EV and b[1] == KETW_EV]
    check(len(gaps) == a.rounds and all(0 < g < 10**9 for g in gaps),
          'LTTng-to-ketw gaps %s ns: not %d within a second' % (gaps, a.rounds))
    if gaps:
        print('  LTTng to ketw, the gaps in ns: %s' % gaps)

    # The traces interleave: LTTng's scheduler events among ketw's.
    kt = [e[0] for e in m if e[1].startswith('ketw')]
    inside = [e for e in m if e[1] == 'sched_switch' and kt and kt[0] < e[0] < kt[-1]]
    check(len(inside) > 0, 'no LTTng sched_switch between ketw\'s first and last events')
    print('  %d LTTng sched_switch events between ketw\'s first and last' % len(inside))

    print('lttng-test: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
