# SPDX-License-Identifier: GPL-2.0
"""
babeltrace2's text output (sink.text.pretty) read back into Python values,
for the viewers' tests: each event line printed with

    --clock-seconds --clock-gmt --no-delta --names=all --fields=all

becomes a dict: "ts_ns" (the absolute time, integer ns), "name" (the
event class), "packet", "common", "specific" and "payload" (dicts of the
fields, or None when the line has no such scope). Structures are dicts,
arrays lists, integers ints, strings str (escapes undone). The discarded
events warnings (stderr) become (count, begin_ns, end_ns, trace, stream).
"""
import re

_ESC = {'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', '"': '"', "'": "'",
        'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', '0': '\0', '?': '?'}


def _ws(s, i):
    while i < len(s) and s[i] == ' ':
        i += 1
    return i


def _string(s, i):
    assert s[i] == '"'
    i += 1
    out = []
    while s[i] != '"':
        c = s[i]
        if c == '\\':
            e = s[i + 1]
            if e == 'x':
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(_ESC.get(e, e))
            i += 2
            continue
        out.append(c)
        i += 1
    return ''.join(out), i + 1


def _scalar(s, i):
    j = i
    while j < len(s) and s[j] not in ',}]':
        j += 1
    word = s[i:j].strip()
    if re.fullmatch(r'-?0x[0-9A-Fa-f]+', word):
        return int(word, 16), j
    if re.fullmatch(r'-?[0-9]+', word):
        return int(word), j
    return word, j


def value(s, i=0):
    """The value at s[i]: (value, index after it)."""
    i = _ws(s, i)
    c = s[i]
    if c == '{':
        d = {}
        i = _ws(s, i + 1)
        while s[i] != '}':
            j = s.index(' = ', i)
            name = s[i:j]
            v, i = value(s, j + 3)
            d[name] = v
            i = _ws(s, i)
            if s[i] == ',':
                i = _ws(s, i + 1)
        return d, i + 1
    if c == '[':
        a = []
        i = _ws(s, i + 1)
        while s[i] != ']':
            m = re.match(r'\[(\d+)\] = ', s[i:])
            assert m and int(m.group(1)) == len(a), s[i:i + 40]
            v, i = value(s, i + m.end())
            a.append(v)
            i = _ws(s, i)
            if s[i] == ',':
                i = _ws(s, i + 1)
        return a, i + 1
    if c == '"':
        return _string(s, i)
    return _scalar(s, i)


def seconds_ns(text):
    """'1700000000.000001000' as integer ns (no float rounding)."""
    neg = text.startswith('-')
    sec, _, frac = text.lstrip('-').partition('.')
    ns = int(sec) * 1000000000 + int((frac + '000000000')[:9])
    return -ns if neg else ns


_SCOPES = (('stream.packet.context = ', 'packet'),
           ('stream.event.context = ', 'common'),
           ('event.context = ', 'specific'),
           ('event.fields = ', 'payload'))


def event_line(line):
    m = re.match(r'timestamp = (-?[0-9.]+), ', line)
    if not m:
        raise ValueError('not an event line: ' + line[:80])
    ev = {'ts_ns': seconds_ns(m.group(1)), 'packet': None, 'common': None,
          'specific': None, 'payload': None}
    n = re.search(r', name = ([^,]+), ', line)
    ev['name'] = n.group(1)
    t = re.search(r', trace = ([^,]*), ', line)
    ev['trace'] = t.group(1) if t else None
    i = n.end()
    while i < len(line):
        for prefix, key in _SCOPES:
            if line.startswith(prefix, i):
                ev[key], i = value(line, i + len(prefix))
                break
        else:
            raise ValueError('unexpected text at %d: %s' % (i, line[i:i + 60]))
        i = _ws(line, i)
        if i < len(line) and line[i] == ',':
            i = _ws(line, i + 1)
    return ev


def events(text):
    return [event_line(l) for l in text.splitlines() if l.startswith('timestamp = ')]


_DISC = re.compile(r'WARNING: Tracer discarded (\d+) events between '
                   r'\[(-?[0-9.]+)\] and \[(-?[0-9.]+)\] in trace "([^"]*)".*?'
                   r'within stream "([^"]*)"')


def discarded(text):
    """The discarded events warnings: (count, begin_ns, end_ns, trace, stream)."""
    out = []
    for m in _DISC.finditer(text):
        out.append((int(m.group(1)), seconds_ns(m.group(2)),
                    seconds_ns(m.group(3)), m.group(4), m.group(5)))
    return out
