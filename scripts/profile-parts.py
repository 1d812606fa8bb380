#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give perf samples to the parts of a ketw write that own them.

Used by make native-profile (tools/native/profile.sh) and make vm-profile
(scripts/vm-profile.sh). Reads sample lines on standard input:

    COUNT SYM+0xOFF DSO

and, for the samples whose DSO contains --dso, finds each address's
inline chain in --binary (addr2line -i) and gives it to the innermost
function of that chain that --parts names ("function part" lines). The
others go to their symbol (their DSO's own code: the benchmark's loop,
the kernel). Prints one table: share of the samples, and with --ns the
ns per event (that share of --ns), with --ghz the cycles too.
"""
import argparse
import collections
import subprocess
import sys

ORDER = ('context filter dispatch clock reserve order loop header copy '
         'commit call').split()


def text_symbols(binary):
    """Functions of the executable sections: {name: (section, address)}.

    In a relocatable object (a .ko) every section starts at 0, so an
    address means something only with its section (addr2line -j).
    """
    out = subprocess.run(['objdump', '-t', binary], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[-3].startswith('.text') and 'F' in f[1:-3]:
            syms[f[-1]] = (f[-3], int(f[0], 16))
    return syms


def is_relocatable(binary):
    out = subprocess.run(['readelf', '-h', binary], capture_output=True,
                         text=True, check=True).stdout
    return any(l.split()[:1] == ['Type:'] and 'REL' == l.split()[1]
               for l in out.splitlines())


def inline_chains(binary, section, addrs):
    """{address: [functions of its inline chain, innermost first]}."""
    cmd = ['addr2line', '-i', '-f', '-a', '-e', binary]
    if section:
        cmd[1:1] = ['-j', section]
    out = subprocess.run(cmd, input='\n'.join('0x%x' % x for x in addrs),
                         capture_output=True, text=True,
                         check=True).stdout.splitlines()
    # addr2line -a -f -i: the address, then function and file:line pairs,
    # innermost first.
    chains, cur, fn = {}, None, False
    for line in out:
        if line.startswith('0x'):
            cur = int(line, 16)
            chains[cur] = []
            fn = True
        elif fn:
            chains[cur].append(line)
            fn = False
        else:
            fn = True
    return chains


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--binary', required=True)
    ap.add_argument('--parts', required=True)
    ap.add_argument('--dso', required=True,
                    help='samples whose DSO contains this (and whose symbol '
                    'is in the binary\'s .text) are the binary\'s; \'\': '
                    'the symbol alone decides')
    ap.add_argument('--title', default='')
    ap.add_argument('--ns', type=float, help='ns per event under perf')
    ap.add_argument('--ghz', type=float)
    ap.add_argument('--others', type=int, default=4,
                    help='how many symbols outside the parts to name')
    a = ap.parse_args()

    owner = {}
    for line in open(a.parts):
        f = line.split()
        if len(f) == 2 and not line.startswith('#'):
            owner[f[0]] = f[1]
    syms = text_symbols(a.binary)
    rel = is_relocatable(a.binary)
    mine = collections.Counter()
    outside = collections.Counter()
    for line in sys.stdin:
        f = line.split()
        if len(f) < 3 or not f[0].isdigit():
            continue
        n, symoff, dso = int(f[0]), f[1], ' '.join(f[2:])
        name, _, off = symoff.partition('+')
        if a.dso in dso and name in syms and off.startswith('0x'):
            sec, addr = syms[name]
            mine[(sec if rel else None, addr + int(off, 16))] += n
        else:
            outside[name] += n

    part = {}
    for sec in {k[0] for k in mine}:
        addrs = sorted(x for s, x in mine if s == sec)
        for x, chain in inline_chains(a.binary, sec, addrs).items():
            part[(sec, x)] = next((owner[fn] for fn in chain
                                   if fn in owner), None)
    total = collections.Counter()
    for x, n in mine.items():
        total[part.get(x) or 'other'] += n
    others = sum(outside.values())
    tot = sum(total.values()) + others
    if not tot:
        print('%s: no samples' % a.title)
        return 1
    print('%s (%d samples)' % (a.title, tot))
    head = '  %-30s %7s' % ('part', 'share')
    if a.ns:
        head += ' %8s' % 'ns'
    if a.ns and a.ghz:
        head += ' %8s' % 'cycles'
    print(head)

    def row(label, n):
        sh = n / tot
        s = '  %-30s %6.1f%%' % (label, 100 * sh)
        if a.ns:
            s += ' %8.1f' % (a.ns * sh)
        if a.ns and a.ghz:
            s += ' %8.0f' % (a.ns * sh * a.ghz)
        print(s)

    for p in ORDER + ['other']:
        if p in total:
            row(p, total[p])
    named = outside.most_common(a.others)
    for name, n in named:
        row('outside: ' + name[:21], n)
    rest = others - sum(n for _, n in named)
    if rest:
        row('outside: the rest', rest)
    return 0


if __name__ == '__main__':
    sys.exit(main())
