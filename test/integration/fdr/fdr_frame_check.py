#!/usr/bin/env python3
"""Checks the framing of FDR files (docs/formats.md, "Framing"): the 32-byte
header, then blocks that fill the file exactly, none larger than the buffer
size the header declares (bytes 16-23), each made of well-formed records.

Version 2 and later: a block is a BufferExtents record and exactly the bytes
it counts; it opens with NewBuffer, Walltime, Pid (version 3+), NewCPUId.
Version 1: a block runs from NewBuffer to its EndOfBuffer record, inclusive.

usage: fdr_frame_check.py FILE...      check these files
       fdr_frame_check.py --scan DIR   check every FDR file under DIR
Prints one line per file; exits 1 at the first file that is not framed."""
import os
import struct
import sys

NEW_BUFFER, END_OF_BUFFER, NEW_CPU, TSC_WRAP, WALLTIME = 0, 1, 2, 3, 4
CUSTOM, CALL_ARG, EXTENTS, TYPED, PID = 5, 6, 7, 8, 9


class Bad(Exception):
    pass


def records(data, start, end, version):
    """Kinds of the records in data[start:end] ('fn0'..'fn3' or a metadata
    kind number), checking each is whole and known."""
    off, kinds = start, []
    while off < end:
        b = data[off]
        if b & 1 == 0:
            if end - off < 8:
                raise Bad("function record cut at offset %d" % off)
            kinds.append("fn%d" % ((b >> 1) & 7))
            if (b >> 1) & 7 > 3:
                raise Bad("function record of kind %d at offset %d" % ((b >> 1) & 7, off))
            off += 8
            continue
        if end - off < 16:
            raise Bad("metadata record cut at offset %d" % off)
        kind = b >> 1
        size = 16
        if kind > PID:
            raise Bad("unknown metadata kind %d at offset %d" % (kind, off))
        if kind in (CUSTOM, TYPED):
            n = struct.unpack_from("<i", data, off + 1)[0]
            if n <= 0 or off + 16 + n > end:
                raise Bad("event of %d bytes at offset %d does not fit its block" % (n, off))
            size += n
        if kind == EXTENTS:
            raise Bad("BufferExtents inside a block at offset %d" % off)
        if kind == END_OF_BUFFER and version >= 2:
            raise Bad("EndOfBuffer in version %d at offset %d" % (version, off))
        if kind == CALL_ARG and (not kinds or kinds[-1] not in ("fn3", CALL_ARG)):
            raise Bad("CallArgument not after an enter-with-argument at offset %d" % off)
        kinds.append(kind)
        off += size
    return kinds


def check_block(kinds, version, at):
    want = [NEW_BUFFER, WALLTIME] + ([PID] if version >= 3 else []) + [NEW_CPU]
    if kinds[:len(want)] != want:
        raise Bad("block at offset %d opens with %s, not %s" % (at, kinds[:len(want)], want))
    for k in kinds[len(want):]:
        if k in (NEW_BUFFER, WALLTIME, PID):
            raise Bad("preamble record %d inside the block at offset %d" % (k, at))


def check(path):
    data = open(path, "rb").read()
    if len(data) < 32:
        raise Bad("%d bytes: no header" % len(data))
    version, ftype = struct.unpack_from("<HH", data, 0)
    declared = struct.unpack_from("<Q", data, 16)[0]
    if ftype != 1 or version not in (1, 2, 3, 4, 5):
        raise Bad("not an FDR header (version %d, type %d)" % (version, ftype))
    off, blocks, largest = 32, 0, 0
    if off == len(data):
        raise Bad("header only")
    while off < len(data):
        if version >= 2:
            if len(data) - off < 16 or data[off] != (EXTENTS << 1 | 1):
                raise Bad("no BufferExtents at offset %d" % off)
            size = struct.unpack_from("<Q", data, off + 1)[0]
            if off + 16 + size > len(data):
                raise Bad("block at offset %d claims %d bytes, %d remain" % (off, size, len(data) - off - 16))
            kinds = records(data, off + 16, off + 16 + size, version)
            check_block(kinds, version, off)
            off += 16 + size
        else:
            start, end = off, off
            while True:  # find the EndOfBuffer ending this block
                if end >= len(data):
                    raise Bad("block at offset %d has no EndOfBuffer" % start)
                b = data[end]
                if b & 1 == 0:
                    end += 8
                elif b >> 1 in (CUSTOM, TYPED):
                    end += 16 + max(1, struct.unpack_from("<i", data, end + 1)[0])
                elif b >> 1 == END_OF_BUFFER:
                    end += 16
                    break
                else:
                    end += 16
            if end > len(data):
                raise Bad("block at offset %d runs past the end" % start)
            kinds = records(data, start, end, version)
            if kinds.count(END_OF_BUFFER) != 1:
                raise Bad("block at offset %d: %d EndOfBuffer records" % (start, kinds.count(END_OF_BUFFER)))
            check_block(kinds[:-1], version, start)
            size = end - start
            off = end
        if size > declared:
            raise Bad("block at offset %d holds %d bytes, more than the header's buffer size %d"
                      % (off - size, size, declared))
        blocks += 1
        largest = max(largest, size)
    return "%s: version %d, %d blocks, largest %d, header buffer size %d" % (
        path, version, blocks, largest, declared)


def is_fdr(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return len(head) == 4 and head[2:4] == b"\x01\x00" and head[0] in (1, 2, 3, 4, 5) and head[1] == 0


def main(argv):
    if argv[:1] == ["--scan"]:
        paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(argv[1]) for f in fs
                       if os.path.isfile(os.path.join(d, f)) and is_fdr(os.path.join(d, f)))
    else:
        paths = argv
    for p in paths:
        try:
            print(check(p))
        except Bad as e:
            print("FDR framing: %s: %s" % (p, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
