#!/usr/bin/env python3
"""Write the bedrock vectors' bodies (AWS event-stream frames) from readable descriptions.

    python3 make.py            write NNN-name.bin for every NNN-name.frames next to this script
    python3 make.py --check    exit 1 when a committed .bin differs from what its .frames gives

Standard library only.  A `.frames` file describes one body, one frame per line (blank lines
and lines starting with `#` are ignored):

    event EVENT-TYPE JSON        headers :event-type, :content-type application/json,
                                 :message-type event; the payload is JSON exactly as written
    exception TYPE JSON          headers :exception-type, :content-type, :message-type exception
    error CODE MESSAGE           headers :error-code, :error-message, :message-type error; no payload
    chunk JSON                   InvokeModelWithResponseStream: event type `chunk`, payload
                                 {"bytes":"<base64 of JSON as written>"}
    chunk+p JSON                 the same with a "p" padding field after "bytes"

A line may start with modifiers in brackets, applied to that frame:

    [bad-message-crc]     the message CRC (last 4 bytes) is wrong
    [bad-prelude-crc]     the prelude CRC is wrong
    [bad-headers]         headers_length ends inside the last header's value (CRCs valid)
    [total-length=N]      total_length says N (the prelude CRC is recomputed, so it is valid)
    [all-header-types]    extra headers of every type 0-9 before the usual ones
    [truncate=N]          keep only the first N bytes of the frame (the body then ends)

The frame format: a 12-byte prelude (total_length, headers_length, CRC32 of those 8 bytes,
all big-endian), the headers, the payload, and the CRC32 of everything before it.  A header is
a 1-byte name length, the name, a 1-byte type and its value: 0 true, 1 false, 2 byte, 3 short,
4 int, 5 long, 6 bytes and 7 string (2-byte length first), 8 timestamp (ms, 8 bytes), 9 uuid.
"""

import base64
import glob
import os
import re
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def crc(b):
    return zlib.crc32(b) & 0xffffffff


def header(name, typ, value):
    n = name.encode('utf-8')
    out = struct.pack('>B', len(n)) + n + struct.pack('>B', typ)
    if typ in (0, 1):
        return out
    if typ == 2:
        return out + struct.pack('>b', value)
    if typ == 3:
        return out + struct.pack('>h', value)
    if typ == 4:
        return out + struct.pack('>i', value)
    if typ in (5, 8):
        return out + struct.pack('>q', value)
    if typ in (6, 7):
        v = value.encode('utf-8') if isinstance(value, str) else value
        return out + struct.pack('>H', len(v)) + v
    if typ == 9:
        assert len(value) == 16
        return out + value
    raise ValueError('header type %r' % typ)


ALL_TYPES = [
    ('x-true', 0, None), ('x-false', 1, None), ('x-byte', 2, -7), ('x-short', 3, 1234),
    ('x-int', 4, -123456), ('x-long', 5, 1 << 40), ('x-bytes', 6, b'\x00\xff\x10'),
    ('x-string', 7, 'caf\u00e9'), (':date', 8, 1764040000000),
    ('x-uuid', 9, bytes(range(16))),
]


def frame(headers, payload, mods):
    hb = b''.join(header(*h) for h in headers)
    hlen = len(hb)
    if 'bad-headers' in mods:
        hlen -= 2                       # the last header's value runs past the headers
    total = 12 + len(hb) + len(payload) + 4
    said = int(mods['total-length']) if 'total-length' in mods else total
    prelude = struct.pack('>II', said, hlen)
    pcrc = crc(prelude)
    if 'bad-prelude-crc' in mods:
        pcrc ^= 0x5a5a5a5a
    msg = prelude + struct.pack('>I', pcrc) + hb + payload
    mcrc = crc(msg)
    if 'bad-message-crc' in mods:
        mcrc ^= 0xa5a5a5a5
    out = msg + struct.pack('>I', mcrc)
    if 'truncate' in mods:
        out = out[:int(mods['truncate'])]
    return out


def build(text, where):
    out = b''
    for ln, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        mods = {}
        while line.startswith('['):
            m = re.match(r'\[([a-z-]+)(?:=(\d+))?\]\s*', line)
            if not m:
                raise SystemExit('%s:%d: bad modifier' % (where, ln))
            mods[m.group(1)] = m.group(2)
            line = line[m.end():]
        kind, _, rest = line.partition(' ')
        extra = [(n, t, v) for n, t, v in ALL_TYPES] if 'all-header-types' in mods else []
        if kind == 'event':
            etype, _, payload = rest.partition(' ')
            hs = extra + [(':event-type', 7, etype), (':content-type', 7, 'application/json'),
                          (':message-type', 7, 'event')]
            body = payload.encode('utf-8')
        elif kind == 'exception':
            etype, _, payload = rest.partition(' ')
            hs = extra + [(':exception-type', 7, etype), (':content-type', 7, 'application/json'),
                          (':message-type', 7, 'exception')]
            body = payload.encode('utf-8')
        elif kind == 'error':
            code, _, message = rest.partition(' ')
            hs = extra + [(':error-code', 7, code), (':error-message', 7, message),
                          (':message-type', 7, 'error')]
            body = b''
        elif kind in ('chunk', 'chunk+p'):
            b64 = base64.b64encode(rest.encode('utf-8')).decode('ascii')
            payload = '{"bytes":"%s"' % b64
            if kind == 'chunk+p':
                payload += ',"p":"abcdefghijklmnopqrstuvwxyzABCDEF"'
            payload += '}'
            hs = extra + [(':event-type', 7, 'chunk'), (':content-type', 7, 'application/json'),
                          (':message-type', 7, 'event')]
            body = payload.encode('utf-8')
        else:
            raise SystemExit('%s:%d: unknown frame kind %r' % (where, ln, kind))
        out += frame(hs, body, mods)
    return out


def main(argv):
    check = '--check' in argv
    stale = 0
    for path in sorted(glob.glob(os.path.join(HERE, '*.frames'))):
        with open(path, encoding='utf-8') as f:
            data = build(f.read(), os.path.basename(path))
        target = path[:-len('.frames')] + '.bin'
        if check:
            try:
                with open(target, 'rb') as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                print('stale: %s' % os.path.basename(target))
                stale += 1
        else:
            with open(target, 'wb') as f:
                f.write(data)
    return 1 if stale else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
