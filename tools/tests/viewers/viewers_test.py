#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
The viewers' tests (make viewers-test, in make check): ketw's files read
by the real consumers, each checked against `ketw report --json` of the
same file.

  babeltrace2  the plugin (source.ketw.file) found with no option but
               --plugin-path; its text output field by field against
               the report (events, order, times to the ns, names and
               values, extended data items), discarded events against
               ketw's loss accounting; CTF written by babeltrace2's own
               sink and read back; traces merged by time;
               Documentation/ketw-rate.py (python3-bt2)
  chrome       ketw convert --to chrome, field by field (see test_chrome)
  plot         ketw plot, screenshotted by headless Chromium (test_plot)

The files: those tools/tests/gen/ketw-gen-traces writes (every field
type, the other byte order, items, losses on both CPUs, a second trace),
the kept older file tools/tests/golden/v1.0.ketw, and the traces recorded
in the guest kept in tools/tests/traces/.

  viewers_test.py --ketw KETW --plugin-dir DIR --gen GEN [--only NAME]

Prints "ok NAME" or "FAIL NAME" and the reason per test, then
"N passed, M failed"; exits 1 on a failure.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btparse  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
BT_TEXT = ['--clock-seconds', '--clock-gmt', '--no-delta', '--names=all',
           '--fields=all']


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def check_eq(a, b, what):
    if a != b:
        raise Fail('%s: %r != %r' % (what, a, b))


def run(argv, env=None, ok=(0,)):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e)
    out = p.stdout.decode('latin-1')
    err = p.stderr.decode('latin-1')
    if p.returncode not in ok:
        raise Fail('%s: exit %d: %s' % (' '.join(argv), p.returncode,
                                        err.strip()[-2000:]))
    return out, err


class Ctx:
    def __init__(self, args, tmp):
        self.ketw = os.path.abspath(args.ketw)
        self.plugins = os.path.abspath(args.plugin_dir)
        self.tmp = tmp
        self.bt = shutil.which('babeltrace2') or 'babeltrace2'
        gen = os.path.join(tmp, 'gen')
        os.mkdir(gen)
        run([args.gen, gen])
        self.gen = gen
        self.files = [os.path.join(gen, f) for f in
                      ('fields.ketw', 'fields-swapped.ketw', 'other.ketw')]
        self.files.append(os.path.join(TOP, 'tools/tests/golden/v1.0.ketw'))
        self.guest = sorted(glob.glob(os.path.join(TOP, 'tools/tests/traces/*.ketw')))
        self.files += self.guest
        self.genbin = args.gen

    def bt2(self, *argv, ok=(0,)):
        return run([self.bt, '--plugin-path', self.plugins] + list(argv), ok=ok)

    def report_json(self, path):
        out, _ = run([self.ketw, 'report', '--json', path], ok=(0, 3))
        return [json.loads(l) for l in out.splitlines() if l]

    def report_summary(self, path):
        """Per CPU: seq_gaps and the kernel's loss counters, from the table."""
        out, _ = run([self.ketw, 'report', '-H', path], ok=(0, 3))
        cpus = {}
        for line in out.splitlines():
            w = line.split()
            if len(w) == 9 and w[0].isdigit():
                cpus[int(w[0])] = {
                    'records': int(w[1]), 'lost': int(w[3]) + int(w[4]) +
                    int(w[5]) + int(w[6]), 'gaps': int(w[8])}
        return cpus


# ---- what the report says, as babeltrace2 should show it ---------------------

def header_offset(path):
    """realtime_ref - clock_ref from the file header (0 if none)."""
    with open(path, 'rb') as f:
        h = f.read(320)
    bo = '<' if h[:4] == b'WTEK' else '>'
    hsize = struct.unpack_from(bo + 'I', h, 8)[0]
    if hsize < 320:
        return 0
    clock_ref, realtime_ref = struct.unpack_from(bo + 'QQ', h, 0x130)
    return realtime_ref - clock_ref if realtime_ref else 0


def guid_text(b):
    h = b.hex()
    return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def cstr(b):
    return b.split(b'\0', 1)[0].decode('latin-1')


# System event payloads as Documentation/ketw-file-format.rst lays them out
# (host order: the reader swapped them): member name -> value.
def sys_fields(rec):
    p = bytes.fromhex(rec['payload'])
    i = rec['id']

    def u(fmt, off):
        return struct.unpack_from('<' + fmt, p, off)[0]
    if i == 1:
        return {'level': u('I', 0), 'match_any': u('Q', 8), 'match_all': u('Q', 16)}
    if i == 2:
        return {'auto_stop': u('I', 0)}
    if i == 3:
        d = {'provider_guid': guid_text(p[:16])}
        for pre, base in (('old', 16), ('new', 16 + 152)):
            d[pre + '_enabled'] = u('I', base + 4)
            d[pre + '_level'] = u('I', base)
            d[pre + '_match_any'] = u('Q', base + 8)
            d[pre + '_match_all'] = u('Q', base + 16)
        return d
    if i in (4, 5):
        return {'first_lost_timestamp' if i == 4 else 'lost': u('Q', 0)}
    if i in (6, 7):
        return {}
    if i == 8:
        return {'error': u('i', 0)}
    if i == 9:
        return {'trigger_id': u('I', 0), 'event_id': u('I', 4),
                'provider_guid': guid_text(p[8:24]), 'sequence': u('Q', 24),
                'cpu': u('I', 32), 'fired': u('I', 36),
                'suppressed': u('I', 40), 'action': u('I', 44)}
    if i == 16:
        return {'provider_guid': guid_text(p[:16]), 'name': cstr(p[16:48]),
                'nr_events': u('I', 48), 'flags': u('I', 52)}
    if i == 17:
        return {'provider_guid': guid_text(p[:16]), 'id': u('I', 16),
                'type': p[20], 'level': p[21], 'version': u('H', 22),
                'keyword': u('Q', 24), 'name': cstr(p[32:64]),
                'nr_fields': u('I', 64), 'flags': u('I', 68)}
    if i == 18:
        return {'pid': u('I', 0), 'tid': u('I', 4), 'comm': cstr(p[8:24])}
    if i == 19:
        return {'name': cstr(p[:56]), 'base': u('Q', 56), 'size': u('Q', 64)}
    return {'data': list(p)}


def expected_name(rec):
    if rec['system']:
        return 'ketw:' + rec.get('event', 'sys%d' % rec['id'])
    prov = rec.get('provider', rec['guid'])
    return '%s:%s' % (prov, rec['event'] if 'event' in rec else 'id%d' % rec['id'])


def same_value(js, bt, what):
    """A report --json value against babeltrace2's."""
    if js is None:		# past the payload's end
        check(bt in (0, '', []), '%s: null in the report, %r here' % (what, bt))
    elif isinstance(bt, list):
        check_eq(bytes(bt), bytes.fromhex(js), what)
    elif isinstance(bt, int) and isinstance(js, str):
        check_eq(bt, int(js, 16), what)
    else:
        check_eq(bt, js, what)


def same_items(rec, payload, what):
    """The report's "items" against the payload's ext_WORD members."""
    items = rec.get('items', {})
    spec = {k[4:]: v for k, v in payload.items() if k.startswith('ext_')}
    for name, v in spec.items():
        it = items.get(name)
        if name in ('stack', 'ustack', 'progaddr'):
            want = [int(a['addr'], 16) for a in it] if it else []
        elif name == 'cputime':
            want = [it] if it else []
        elif name == 'pidns':
            want = [it] if it else []
        elif name == 'activity':
            want = [it] if it else []
        else:
            raise Fail('%s: unknown item member %s' % (what, name))
        check_eq(v, want, '%s: item %s' % (what, name))
    for name in items:
        check(name in spec, '%s: item %s missing' % (what, name))


def same_event(rec, ev, offset, what):
    check_eq(ev['name'], expected_name(rec), what + ': event class')
    check_eq(ev['ts_ns'], offset + rec['timestamp'], what + ': time (ns)')
    check_eq(ev['packet'], {'cpu_id': rec['cpu']}, what + ': packet context')
    want = {'tid': rec['tid'], 'pid': rec['pid'], 'cpu': rec['cpu'],
            'level': rec['level'], 'keyword': rec['keyword'],
            'type': rec['type'], 'version': rec['version'],
            'provider_guid': rec['guid'], 'flags': rec['flags'],
            'sequence': rec['seq'], 'id': rec['id']}
    check_eq(ev['common'], want, what + ': common context')
    if rec['system']:
        check_eq(ev['payload'], sys_fields(rec), what + ': payload')
    elif 'fields' in rec:
        fields = [k for k in ev['payload'] if not k.startswith('ext_')]
        check_eq(fields, list(rec['fields']), what + ': field names')
        for k, v in rec['fields'].items():
            same_value(v, ev['payload'][k], '%s: field %s' % (what, k))
    else:
        check_eq(ev['payload'].get('payload'),
                 list(bytes.fromhex(rec['payload'])), what + ': payload bytes')
    check_eq(ev['specific'], None, what + ': specific context')
    same_items(rec, ev['payload'], what)


def cpu_gaps(recs, offset):
    """Per CPU: (count, time before, time after) of each sequence gap."""
    gaps = collections.defaultdict(list)
    last = {}
    for r in sorted(recs, key=lambda r: (r['cpu'], r['seq'])):
        p = last.get(r['cpu'])
        if p and r['seq'] > p['seq'] + 1:
            gaps[r['cpu']].append((r['seq'] - p['seq'] - 1,
                                   offset + p['timestamp'],
                                   offset + r['timestamp']))
        last[r['cpu']] = r
    return gaps


def compare_bt_report(c, path):
    out, err = c.bt2(path, *BT_TEXT)
    evs = btparse.events(out)
    recs = c.report_json(path)
    offset = header_offset(path)
    name = os.path.basename(path)
    check_eq(len(evs), len(recs), name + ': events')
    # Order: each CPU's records exactly as the report, times never back.
    per = collections.defaultdict(list)
    for ev in evs:
        per[ev['common']['cpu']].append(ev)
    rper = collections.defaultdict(list)
    for r in recs:
        rper[r['cpu']].append(r)
    check_eq(sorted(per), sorted(rper), name + ': cpus')
    for cpu in rper:
        for k, (r, ev) in enumerate(zip(rper[cpu], per[cpu])):
            same_event(r, ev, offset, '%s cpu %d #%d' % (name, cpu, k))
    times = [ev['ts_ns'] for ev in evs]
    check(times == sorted(times), name + ': times go back')
    # Losses: a discarded events message per gap, where it happened.
    disc = btparse.discarded(err)
    gaps = cpu_gaps(recs, offset)
    summary = c.report_summary(path)
    for cpu in rper:
        got = [(n, b, e) for n, b, e, _, s in disc if s == 'cpu%d' % cpu]
        check_eq(got, gaps.get(cpu, []), '%s cpu %d: discarded events' % (name, cpu))
        check_eq(sum(n for n, _, _ in got), summary[cpu]['gaps'],
                 '%s cpu %d: discarded against seq_gaps' % (name, cpu))
    return evs, disc, recs


def test_support_info(c):
    """babeltrace.support-info: 1 for .ketw files in either order, 0 else."""
    for f, want in ((c.files[0], '1.000000'), (c.files[1], '1.000000'),
                    (os.path.join(TOP, 'README.md'), '0.000000')):
        out, _ = c.bt2('query', 'source.ketw.file', 'babeltrace.support-info',
                       '-p', 'input="%s",type="file"' % f)
        check_eq(out.strip(), want, 'support-info of ' + f)
    out, _ = c.bt2('query', 'source.ketw.file', 'babeltrace.support-info',
                   '-p', 'input="%s",type="directory"' % c.gen)
    check_eq(out.strip(), '0.000000', 'support-info of a directory')
    # Found with no other option: the component babeltrace2 chose.
    out, _ = c.bt2('--run-args', c.files[0])
    check('source.ketw.file' in out, 'babeltrace2 did not pick source.ketw.file: ' + out)


def test_text_vs_report(c):
    """babeltrace2's text against ketw report --json, every file."""
    n = 0
    for f in c.files:
        evs, _, _ = compare_bt_report(c, f)
        n += len(evs)
    check(n > 100, 'only %d events' % n)


def test_fixture_coverage(c):
    """The generated files hold what the tests claim to test."""
    recs = c.report_json(c.files[0])
    types = set()
    for r in recs:
        if r.get('event') == 'all':
            types |= set(r['fields'])
    check(types >= {'u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64',
                    'h32', 'h64', 'id', 'str', 'bin', 'odd', 'tail'},
          'field types: %s' % types)
    check(any(r.get('items') for r in recs), 'no extended data items')
    check(any(r['truncated'] for r in recs), 'no cut payload')
    check(any(not r['system'] and 'fields' not in r for r in recs),
          'no event without a layout')
    gaps = cpu_gaps(recs, 0)
    check(len(gaps.get(0, [])) >= 2 and len(gaps.get(1, [])) >= 2,
          'losses on both cpus: %s' % dict(gaps))
    sys_ids = {r['id'] for r in recs if r['system']}
    check(sys_ids >= set(range(1, 10)) | {16, 17, 18, 19}, 'system events %s' % sys_ids)
    summary = c.report_summary(c.files[0])
    for cpu, s in summary.items():
        check_eq(s['gaps'], s['lost'], 'cpu %d: gaps against counters' % cpu)
    out, _ = run([c.ketw, 'report', '-H', c.files[1]])
    check('written with the other byte order' in out, 'not swapped')


def test_discarded_equal_counters(c):
    """Discarded events per CPU equal ketw's loss counters (generated files,
    and the guest's, drained until the session stopped)."""
    for f in c.files[:2] + c.guest:
        _, disc, _ = compare_bt_report(c, f)
        summary = c.report_summary(f)
        for cpu, s in summary.items():
            got = sum(n for n, _, _, _, st in disc if st == 'cpu%d' % cpu)
            check_eq(got, s['lost'], '%s cpu %d: discarded against lost_*' %
                     (os.path.basename(f), cpu))


def strip_len(v):
    """Without the __NAME_len members sink.ctf.fs adds for arrays."""
    if isinstance(v, dict):
        return {k: strip_len(x) for k, x in v.items()
                if not (k.startswith('__') and k.endswith('_len'))}
    if isinstance(v, list):
        return [strip_len(x) for x in v]
    return v


def test_ctf_round_trip(c):
    """CTF from babeltrace2's sink.ctf.fs, read back: the same events and losses."""
    for f in c.files:
        name = os.path.basename(f)
        d = os.path.join(c.tmp, 'ctf-' + name)
        c.bt2(f, '--output-format=ctf', '--output', d)
        check(glob.glob(os.path.join(d, '*', 'metadata')), name + ': no CTF metadata')
        out, err = c.bt2(f, *BT_TEXT)
        a, da = btparse.events(out), btparse.discarded(err)
        out, err = run([c.bt, d] + BT_TEXT)
        b, db = btparse.events(out), btparse.discarded(err)
        check_eq(len(b), len(a), name + ': events through CTF')
        for k, (x, y) in enumerate(zip(a, b)):
            for key in ('ts_ns', 'name', 'common', 'specific', 'payload'):
                check_eq(strip_len(y[key]), x[key], '%s #%d: %s through CTF' %
                         (name, k, key))
            check_eq(y['packet']['cpu_id'], x['packet']['cpu_id'], name + ': cpu_id')
        # The CTF reader names a stream after its file: DIR/TRACE/cpuN.
        check_eq([t[:3] + (os.path.basename(t[4]),) for t in db],
                 [t[:3] + (t[4],) for t in da],
                 name + ': discarded events through CTF')
        check(da or 'fields' not in name, name + ': no losses to carry')


def test_convert_ctf(c):
    """ketw convert --to ctf: babeltrace2's sink, the same events."""
    d = os.path.join(c.tmp, 'conv-ctf')
    out, _ = run([c.ketw, 'convert', c.files[0], '--to', 'ctf', '-o', d],
                 env={'BABELTRACE_PLUGIN_PATH': c.plugins})
    b = btparse.events(run([c.bt, d] + BT_TEXT)[0])
    a = btparse.events(c.bt2(c.files[0], *BT_TEXT)[0])
    check_eq(len(b), len(a), 'events')
    check_eq([strip_len(e['payload']) for e in b], [e['payload'] for e in a], 'payloads')


def test_merge(c):
    """Two .ketw files, and a .ketw file with a CTF trace, merged by time."""
    f, g = c.files[0], c.files[2]
    a = btparse.events(c.bt2(f, *BT_TEXT)[0])
    b = btparse.events(c.bt2(g, *BT_TEXT)[0])
    check(a[0]['ts_ns'] < b[-1]['ts_ns'] and b[0]['ts_ns'] < a[-1]['ts_ns'],
          'the fixtures do not overlap in time')
    for second in (g, os.path.join(c.tmp, 'ctf-other')):
        if second != g:
            c.bt2(g, '--output-format=ctf', '--output', second)
        m = btparse.events(c.bt2(f, second, *BT_TEXT)[0])
        check_eq(len(m), len(a) + len(b), 'merged events')
        times = [e['ts_ns'] for e in m]
        check(times == sorted(times), 'merged out of time order')
        check_eq([e for e in m if e['trace'] == 'fields'], a, 'first trace in the merge')
        check_eq([strip_len(e['payload']) for e in m if e['trace'] != 'fields'],
                 [e['payload'] for e in b], 'second trace in the merge')


def test_trim(c):
    """babeltrace2 --begin/--end (its trimmer seeks the plugin's iterators)."""
    f = c.files[0]
    a = btparse.events(c.bt2(f, *BT_TEXT)[0])
    lo, hi = a[len(a) // 3]['ts_ns'], a[2 * len(a) // 3]['ts_ns']
    b = btparse.events(c.bt2(f, *BT_TEXT, '--begin=%d.%09d' % divmod(lo, 10**9),
                             '--end=%d.%09d' % divmod(hi, 10**9))[0])
    want = [e for e in a if lo <= e['ts_ns'] <= hi]
    check(len(want) > 10, 'a range of %d events' % len(want))
    check_eq(b, want, 'events between --begin and --end')


def test_python_rate(c):
    """Documentation/ketw-rate.py (python3-bt2) against the report."""
    script = os.path.join(TOP, 'Documentation', 'ketw-rate.py')
    for files in ([c.files[0]], [c.files[0], c.files[2]],
                  [f for f in c.files if 'traces/' in f][:1]):
        if not files:
            continue
        out, _ = run(['/usr/bin/python3', script, '--plugin-path', c.plugins] + files)
        want = collections.Counter()
        lost = collections.Counter()
        for f in files:
            off = header_offset(f)
            trace = os.path.basename(f)[:-5]
            for r in c.report_json(f):
                prov = 'ketw' if r['system'] else r.get('provider', r['guid'])
                want[((off + r['timestamp']) // 10**9, prov)] += 1
            for cpu, s in c.report_summary(f).items():
                if s['gaps']:
                    lost['%s/cpu%d' % (trace, cpu)] += s['gaps']
        got = collections.Counter()
        got_lost = collections.Counter()
        for line in out.splitlines():
            w = line.split()
            if w[0] == 'lost':
                got_lost[w[1]] = int(w[2])
            else:
                got[(int(w[0]), w[1])] = int(w[2])
        check_eq(got, want, 'events per provider per second')
        check_eq(got_lost, lost, 'lost per stream')


# ---- ketw convert --to chrome -------------------------------------------------

def task_names(recs):
    """process_name per pid and thread_name per (pid, tid), from TASK records."""
    procs, threads = {}, {}
    for r in recs:
        if r['system'] and r['id'] == 18:
            t = sys_fields(r)
            threads[(t['pid'], t['tid'])] = t['comm']
            if t['pid'] == t['tid'] or t['pid'] not in procs:
                procs[t['pid']] = t['comm']
    procs[0] = 'kernel'
    threads[(0, 0)] = 'interrupts and ketw'
    return procs, threads


def pairs(recs):
    """START/END pairs (nested per provider, event id, thread) and the rest."""
    stacks = collections.defaultdict(list)
    spans, unmatched = [], []
    for r in recs:
        if r['system'] or r['type'] not in (1, 2):
            continue
        key = (r['pid'], r['tid'], r['guid'], r['id'], bool(r['flags'] & 8))
        if r['type'] == 1:
            stacks[key].append(r)
        elif stacks[key]:
            spans.append((stacks[key].pop(), r))
        else:
            unmatched.append(r)
    for st in stacks.values():
        unmatched += st
    return spans, unmatched


def us(ns):
    import decimal
    return decimal.Decimal(ns) / 1000


def chrome_json(c, path):
    import decimal
    out = os.path.join(c.tmp, os.path.basename(path) + '.json')
    run([c.ketw, 'convert', path, '--to', 'chrome', '-o', out])
    with open(out) as f:
        text = f.read()
    return json.loads(text, parse_float=decimal.Decimal), text


def test_chrome(c):
    """ketw convert --to chrome, field by field against the report."""
    for path in c.files:
        name = os.path.basename(path)
        doc, text = chrome_json(c, path)
        recs = c.report_json(path)
        check_eq(sorted(doc), ['displayTimeUnit', 'otherData', 'traceEvents'],
                 name + ': top level')
        check_eq(doc['displayTimeUnit'], 'ns', name)
        evs = doc['traceEvents']
        # Names from the rundown's tasks.
        procs, threads = task_names(recs)
        got_p = {e['pid']: e['args']['name'] for e in evs
                 if e['ph'] == 'M' and e['name'] == 'process_name'}
        got_t = {(e['pid'], e['tid']): e['args']['name'] for e in evs
                 if e['ph'] == 'M' and e['name'] == 'thread_name'}
        check_eq(got_p, procs, name + ': process names')
        check_eq(got_t, threads, name + ': thread names')
        # Every record but the rundown's once; times in us, ns as decimals.
        by_key = {}
        for e in evs:
            if e['ph'] in ('i', 'X'):
                a = e['args']
                k = (a['ketw']['cpu'], a['ketw']['seq']) if 'ketw' in a else \
                    (a.get('cpu'), a.get('seq'))
                if k[1] is not None:	# not a loss's instant
                    check(k not in by_key, '%s: %s twice' % (name, k))
                    by_key[k] = e
                if e['ph'] == 'X':
                    k = (a['end']['ketw']['cpu'], a['end']['ketw']['seq'])
                    by_key[k] = e
        spans, unmatched = pairs(recs)
        span_of = {(s['cpu'], s['seq']): (s, e) for s, e in spans}
        span_of.update({(e['cpu'], e['seq']): (s, e) for s, e in spans})
        unm = {(r['cpu'], r['seq']) for r in unmatched}
        kept = [r for r in recs if not (r['system'] and r['id'] in (16, 17, 18, 19))]
        for r in kept:
            k = (r['cpu'], r['seq'])
            what = '%s cpu %d seq %d' % (name, r['cpu'], r['seq'])
            check(k in by_key, what + ': not converted')
            e = by_key[k]
            if r['system']:
                check_eq((e['ph'], e['s']), ('i', 'g'), what + ': global instant')
                check_eq(e['name'], r['event'], what + ': name')
                check_eq(e['cat'], 'ketw.loss' if r['id'] in (4, 5) else 'ketw',
                         what + ': category')
                check_eq(e['ts'], us(r['timestamp']), what + ': ts')
                if r['id'] == 5:
                    check_eq(e['args']['lost'], sys_fields(r)['lost'], what + ': lost')
                if r['id'] == 4:
                    check_eq(e['args']['first_lost'],
                             us(sys_fields(r)['first_lost_timestamp']), what)
                continue
            check_eq(e['cat'], r.get('provider', r['guid']), what + ': category')
            check_eq(e['name'], r.get('event', 'id%d' % r['id']), what + ': name')
            check_eq((e['pid'], e['tid']), (r['pid'], r['tid']), what + ': thread')
            if k in span_of:
                s, en = span_of[k]
                check_eq(e['ph'], 'X', what + ': a span')
                check_eq(e['ts'], us(s['timestamp']), what + ': span start')
                check_eq(e['dur'], us(en['timestamp'] - s['timestamp']), what + ': dur')
                args, end = dict(e['args']), e['args']['end']
                for f, v in s['fields'].items():
                    check_eq(args[f], v, what + ': start field ' + f)
                for f, v in en['fields'].items():
                    check_eq(end[f], v, what + ': end field ' + f)
                continue
            check_eq((e['ph'], e['s']), ('i', 't'), what + ': thread instant')
            check_eq(e['ts'], us(r['timestamp']), what + ': ts')
            a = e['args']
            if 'fields' in r:
                check_eq([f for f in a if f != 'ketw'], list(r['fields']),
                         what + ': field names')
                for f, v in r['fields'].items():
                    check_eq(a[f], v, what + ': field ' + f)
            else:
                check_eq(a['payload'], r['payload'], what + ': payload')
            kw = a['ketw']
            for f, rf in (('cpu', 'cpu'), ('seq', 'seq'), ('level', 'level'),
                          ('keyword', 'keyword'), ('type', 'type'),
                          ('id', 'id'), ('version', 'version'),
                          ('flags', 'flags')):
                check_eq(kw[f], r[rf], what + ': ketw.' + f)
            check_eq(kw.get('items'), r.get('items'), what + ': items')
            check_eq(kw.get('unmatched', False), k in unm, what + ': unmatched')
        if 'fields' in name:
            check(spans and unmatched, name + ': no pairs to test')
            check(any(len(set(x['tid'] for x in p)) == 1 and
                      p[0]['timestamp'] < p[1]['timestamp'] for p in spans),
                  name + ': spans')
        # Losses: a global instant per gap, where it happened.
        offset = 0
        lost = [e for e in evs if e['ph'] == 'i' and e['name'].startswith('lost ')]
        want = []
        for cpu, gs in sorted(cpu_gaps(recs, offset).items()):
            for n, b, a in gs:
                want.append((cpu, n, us(b), us(a)))
        # The OVERFLOW record's first lost time starts the range when there is one.
        got = []
        for e in lost:
            check_eq((e['cat'], e['s'], e['ts']), ('ketw.loss', 'g', e['args']['to']),
                     name + ': loss event')
            got.append((e['args']['cpu'], e['args']['lost'], e['args']['to']))
        check_eq(sorted(got), sorted((w[0], w[1], w[3]) for w in want),
                 name + ': losses')
        check_eq(doc['otherData']['lost'], sum(w[1] for w in want), name + ': lost total')
        # The counter tracks: per CPU, events per second adding up.
        bin_ns = doc['otherData']['rate_bin_ns']
        for cpu in sorted({r['cpu'] for r in kept}):
            pts = [e for e in evs if e['ph'] == 'C' and e['name'] == 'cpu%d events/s' % cpu]
            check(pts, '%s: no counter for cpu %d' % (name, cpu))
            total = sum(e['args']['events/s'] * bin_ns for e in pts) / 10**9
            check_eq(total, len([r for r in kept if r['cpu'] == cpu]),
                     '%s: cpu %d events in the counter' % (name, cpu))
        # Microseconds with the nanoseconds as three decimals, in the text.
        check('"ts": %d.%03d,' % (kept[1]['timestamp'] // 1000,
                                  kept[1]['timestamp'] % 1000) in text,
              name + ': ts not in us with 3 decimals')


# ---- ketw plot in headless Chromium --------------------------------------------

def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB(A) PNG."""
    import zlib
    with open(path, 'rb') as f:
        data = f.read()
    check(data[:8] == b'\x89PNG\r\n\x1a\n', path + ': not a PNG')
    i, idat = 8, b''
    while i < len(data):
        n, typ = struct.unpack('>I4s', data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
        elif typ == b'IDAT':
            idat += body
        i += 12 + n
    check(depth == 8 and ctype in (2, 6) and not inter,
          '%s: PNG depth %d type %d interlace %d' % (path, depth, ctype, inter))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for y in range(h):
        ft = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            cc = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                line[x] = (line[x] + pr) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def chromium(c, url, png=None, dom=False, size=(1200, 800)):
    exe = shutil.which('chromium') or shutil.which('chromium-browser')
    check(exe, 'no chromium (scripts/deps.sh installs it)')
    prof = tempfile.mkdtemp(prefix='chromium-', dir=c.tmp)
    argv = [exe, '--headless', '--no-sandbox', '--disable-gpu',
            '--disable-background-networking', '--disable-component-update',
            '--disable-sync', '--no-first-run', '--hide-scrollbars',
            '--user-data-dir=' + prof, '--window-size=%d,%d' % size]
    argv += ['--dump-dom'] if dom else ['--screenshot=' + png]
    p = subprocess.run(argv + [url], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    check(p.returncode == 0, 'chromium: exit %d: %s' % (p.returncode,
                                                       p.stderr.decode()[-800:]))
    return p.stdout.decode('utf-8', 'replace')


def svg_doc(text):
    import xml.etree.ElementTree as ET
    i = text.find('<svg')
    j = text.rfind('</svg>')
    check(i >= 0 and j > i, 'no svg element')
    return ET.fromstring(text[i:j + 6])


NS = '{http://www.w3.org/2000/svg}'


def plot_facts(root):
    """Lanes, legend entries and losses of a plot's document."""
    lanes, legend, losses = {}, {}, []
    for g in root.iter(NS + 'g'):
        cls = g.get('class')
        if cls == 'lane':
            lanes[int(g.get('data-cpu'))] = int(g.get('data-events'))
        elif cls == 'legend-entry' and g.get('data-kind') == 'provider':
            legend[g.get('data-provider')] = g.find(NS + 'rect').get('fill')
        elif cls == 'loss':
            r = g.find(NS + 'rect')
            losses.append((int(g.get('data-cpu')), int(g.get('data-lost')),
                           float(r.get('x')), float(r.get('y')),
                           float(r.get('width')), float(r.get('height')),
                           r.get('fill')))
    return lanes, legend, losses


def want_plot(c, path, keep=lambda r: True):
    recs = [r for r in c.report_json(path)
            if not (r['system'] and r['id'] in (16, 17, 18, 19)) and keep(r)]
    lanes = collections.Counter(r['cpu'] for r in recs)
    provs = set()
    for r in recs:
        if r['system']:
            provs.add('ketw (system events)')
        else:
            p = r.get('provider', r['guid'])
            provs.add(p + (' (user)' if r['flags'] & 8 and 'provider' in r else ''))
    return dict(lanes), provs


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def test_plot(c):
    """ketw plot: the document's lanes, legend and losses; Chromium's picture."""
    for path in [c.files[0]] + c.guest:
        plot_one(c, path)
    plot_options(c)


def plot_one(c, path):
    name = os.path.basename(path)
    recs = c.report_json(path)
    gaps = cpu_gaps(recs, 0)
    for ext in ('svg', 'html'):
        out = os.path.join(c.tmp, '%s.%s' % (name, ext))
        run([c.ketw, 'plot', path, '-o', out])
        with open(out) as f:
            text = f.read()
        check(gaps, name + ': no losses to draw')
        if ext == 'html':
            check(text.startswith('<!DOCTYPE html>'), 'not an HTML page')
            check('http' not in text.replace('http://www.w3.org/2000/svg', ''),
                  'the page refers to the network')
        # What the browser parsed, not only what was written.
        dom = chromium(c, 'file://' + out, dom=True) if ext == 'html' else text
        lanes, legend, losses = plot_facts(svg_doc(dom))
        want_lanes, want_provs = want_plot(c, path)
        what = '%s.%s' % (name, ext)
        check_eq(lanes, want_lanes, what + ': lanes and their events')
        check_eq(set(legend), want_provs, what + ': legend entries')
        check(len(set(legend.values())) == len(legend), 'two providers share a colour')
        check_eq(sorted((l[0], l[1]) for l in losses),
                 sorted((cpu, n) for cpu, g in gaps.items() for n, _, _ in g),
                 what + ': loss ranges')
        # The picture: not blank, the providers' colours, red where losses are.
        root = svg_doc(text)
        size = (int(root.get('width')), int(root.get('height')))
        png = os.path.join(c.tmp, '%s-%s.png' % (name, ext))
        chromium(c, 'file://' + out, png=png, size=size)
        w, h, px = png_pixels(png)
        check_eq((w, h), size, 'screenshot size')
        colours = collections.Counter(p for row in px for p in row)
        white = colours[(255, 255, 255)]
        check(white < 0.97 * w * h and len(colours) > 20,
              'blank picture: %d colours, %d of %d white' % (len(colours), white, w * h))
        for prov, fill in legend.items():
            check(colours[hexrgb(fill)] > 20, 'colour of %s (%s) not drawn' % (prov, fill))
        for cpu, n, x, y, wd, ht, fill in losses:
            r, g, b = px[int(y + ht / 2)][int(x + wd / 2)]
            check(r > g + 40 and r > b + 40,
                  'cpu %d loss of %d not shaded red at %d,%d: %s' %
                  (cpu, n, x + wd / 2, y + ht / 2, (r, g, b)))
        if ext == 'html':
            keep = os.path.join(TOP, 'build', 'viewers')
            os.makedirs(keep, exist_ok=True)
            base = os.path.join(keep, name[:-5])
            shutil.copy(png, base + '.png')
            shutil.copy(out, base + '.html')


def plot_options(c):
    """--provider, --from and --to as in report."""
    path = c.files[0]
    recs = c.report_json(path)
    out = os.path.join(c.tmp, 'third.svg')
    run([c.ketw, 'plot', path, '-o', out, '--provider', 'third'])
    with open(out) as f:
        lanes, legend, _ = plot_facts(svg_doc(f.read()))
    check_eq(set(legend), want_plot(c, path, lambda r: r['system'] or
                                    r.get('provider') == 'third')[1], '--provider')
    t = sorted(r['timestamp'] for r in recs)
    lo, hi = t[len(t) // 3], t[2 * len(t) // 3]
    out = os.path.join(c.tmp, 'range.svg')
    run([c.ketw, 'plot', path, '-o', out, '--from', '%d.%09d' % divmod(lo, 10**9),
         '--to', '%d.%09d' % divmod(hi, 10**9)])
    with open(out) as f:
        lanes, legend, _ = plot_facts(svg_doc(f.read()))
    check_eq(lanes, want_plot(c, path, lambda r: lo <= r['timestamp'] <= hi)[0],
             '--from/--to: events per lane')


def test_plot_million(c):
    """A million events binned: a small file, every event counted."""
    big = os.path.join(c.tmp, 'big.ketw')
    run([c.genbin, '--big', '1000000', big])
    out = os.path.join(c.tmp, 'big.html')
    run([c.ketw, 'plot', big, '-o', out])
    size = os.path.getsize(out)
    check(size < 2 * 1024 * 1024, 'the plot of 1M events is %d bytes' % size)
    with open(out) as f:
        lanes, legend, losses = plot_facts(svg_doc(f.read()))
    summary = c.report_summary(big)
    head, _ = run([c.ketw, 'report', '-H', big])
    m = re.search(r'rundown: +(\d+) providers, (\d+) event layouts, (\d+) tasks', head)
    rundown = sum(int(x) for x in m.groups())
    m = re.search(r'modules: +(\d+)', head)
    rundown += int(m.group(1)) if m else 0
    check_eq(sum(lanes.values()) + rundown,
             sum(s['records'] for s in summary.values()),
             'events in the lanes (all records but the rundown)')
    check_eq(sum(l[1] for l in losses), sum(s['gaps'] for s in summary.values()),
             'lost events shaded')
    check({l[0] for l in losses} == {0, 1}, 'losses on both cpus')
    png = os.path.join(c.tmp, 'big.png')
    chromium(c, 'file://' + out, png=png)
    w, h, px = png_pixels(png)
    check(len(collections.Counter(p for row in px for p in row)) > 20, 'blank')
    os.unlink(big)


TESTS = [test_support_info, test_fixture_coverage, test_text_vs_report,
         test_discarded_equal_counters, test_ctf_round_trip, test_convert_ctf,
         test_merge, test_trim, test_python_rate, test_chrome, test_plot,
         test_plot_million]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ketw', required=True)
    ap.add_argument('--plugin-dir', required=True)
    ap.add_argument('--gen', required=True)
    ap.add_argument('--only')
    ap.add_argument('--keep', action='store_true', help='keep the temporary files')
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='ketw-viewers-')
    passed = failed = 0
    try:
        c = Ctx(args, tmp)
        for t in TESTS:
            name = t.__name__[5:]
            if args.only and args.only not in name:
                continue
            try:
                t(c)
                print('ok    ' + name)
                passed += 1
            except Fail as e:
                print('FAIL  %s: %s' % (name, str(e)[:3000]))
                failed += 1
            except Exception:
                print('FAIL  %s: %s' % (name, traceback.format_exc()[-3000:]))
                failed += 1
            sys.stdout.flush()
    finally:
        if args.keep:
            print('files kept in ' + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
