#!/usr/bin/env python3
"""Checks the 32-byte header of a basic or FDR log (docs/formats.md "Common
header"): bytes 24-31 are "XRRT", major, minor (a byte each), patch (u16
little-endian) of VERSION; bytes 16-23 zero in a basic log, the buffer size
(not zero) in an FDR log. Prints "<type> <version>" read back.

usage: header_stamp.py LOG VERSION     exit 0 ok, 1 with the reason"""
import struct
import sys


def main(path, version):
    with open(path, "rb") as f:
        h = f.read(32)
    if len(h) != 32:
        return "%s: %d bytes, no header" % (path, len(h))
    fmt_version, ftype = struct.unpack_from("<HH", h, 0)
    magic, major, minor, patch = struct.unpack_from("<4sBBH", h, 24)
    want = tuple(int(x) for x in version.split("."))
    if magic != b"XRRT":
        return "%s: bytes 24-27 are %r, not b'XRRT'" % (path, magic)
    if (major, minor, patch) != want:
        return "%s: the header says %d.%d.%d, the runtime is %s" % (
            path, major, minor, patch, version)
    (free16,) = struct.unpack_from("<Q", h, 16)
    if ftype == 0 and (fmt_version, free16) != (3, 0):
        return "%s: basic log version %d, bytes 16-23 %#x (want 3, 0)" % (
            path, fmt_version, free16)
    if ftype == 1 and (fmt_version not in (1, 5) or free16 == 0):
        return "%s: FDR log version %d, buffer size %d" % (path, fmt_version, free16)
    if ftype not in (0, 1):
        return "%s: file type %d" % (path, ftype)
    print("%s %d.%d.%d" % ("basic" if ftype == 0 else "fdr", major, minor, patch))
    return None


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    why = main(sys.argv[1], sys.argv[2])
    if why:
        print(why, file=sys.stderr)
        sys.exit(1)
