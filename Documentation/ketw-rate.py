#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Events per provider per second of ketw traces, with babeltrace2's Python
bindings (Debian: python3-bt2) and ketw's babeltrace2 plugin
(Documentation/ketw-viewers.rst):

    Documentation/ketw-rate.py [--plugin-path DIR] TRACE...

TRACE: .ketw files (read by source.ketw.file), CTF trace directories, or
both: babeltrace2 merges them by time. --plugin-path: where
babeltrace-plugin-ketw.so is when it is not installed (tools/babeltrace2
in a build tree). Prints one line per second and provider:

    SECOND PROVIDER EVENTS

SECOND in seconds from the clock's origin (the Unix epoch for traces
with a clock reference, format 1.2), PROVIDER the part of the event
class name before ':' ("ketw" for ketw's system events), then the
events lost (babeltrace2's discarded events) per stream:

    lost TRACE/STREAM EVENTS
"""
import argparse
import collections
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[1])
    ap.add_argument('--plugin-path', help='directory of babeltrace-plugin-ketw.so')
    ap.add_argument('traces', nargs='+')
    args = ap.parse_args()
    if args.plugin_path:
        # Read when bt2 first looks for plugins, below.
        old = os.environ.get('BABELTRACE_PLUGIN_PATH')
        os.environ['BABELTRACE_PLUGIN_PATH'] = (
            args.plugin_path + (':' + old if old else ''))
    import bt2

    rate = collections.Counter()
    lost = collections.Counter()
    specs = [bt2.AutoSourceComponentSpec(t) for t in args.traces]
    for msg in bt2.TraceCollectionMessageIterator(specs):
        if isinstance(msg, bt2._EventMessageConst):
            second = msg.default_clock_snapshot.ns_from_origin // 1000000000
            provider = msg.event.name.split(':', 1)[0]
            rate[(second, provider)] += 1
        elif isinstance(msg, bt2._DiscardedEventsMessageConst):
            stream = '%s/%s' % (msg.stream.trace.name, msg.stream.name)
            lost[stream] += msg.count or 1
    for (second, provider), n in sorted(rate.items()):
        print(second, provider, n)
    for stream, n in sorted(lost.items()):
        print('lost', stream, n)
    return 0


if __name__ == '__main__':
    sys.exit(main())
