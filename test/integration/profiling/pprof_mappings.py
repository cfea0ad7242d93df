#!/usr/bin/env python3
"""Prints the mappings of a pprof profile, one a line: "<file name> <build-id>"
("-" when empty), read from the protobuf itself (profile.proto: Profile.mapping
= 3, Profile.string_table = 6; Mapping.filename = 5, Mapping.build_id = 6), so
that no pprof client is needed."""
import gzip, sys

def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return r, i

def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        kind = key & 7
        if kind == 0:
            v, i = varint(b, i)
        elif kind == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif kind == 1:
            v, i = b[i:i + 8], i + 8
        elif kind == 5:
            v, i = b[i:i + 4], i + 4
        else:
            sys.exit("bad wire type %d" % kind)
        yield key >> 3, v

data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
strings, mappings = [], []
for f, v in fields(data):
    if f == 6:
        strings.append(v.decode())
    elif f == 3:
        m = dict(fields(v))
        mappings.append((m.get(5, 0), m.get(6, 0)))
for name, build_id in mappings:
    print(strings[name] or "-", strings[build_id] or "-")
