#!/usr/bin/env python3
"""Prints the captured argument values an FDR file holds (docs/formats.md,
"Argument values in FDR logs"), read without the runtime's code: one line
per function record that has values, threads in file order, each thread's
records in order:

  T<tid> F<function id> enter|exit <value> ...
  value: <what hex>.<format>.<status>=<bits hex>, and for a string
         (format 5) :<its text in hex>

An entry's values are its CallArguments (what at byte 9, format at byte
10), a string's status and text from the "xray-args" custom event right
after them (printable text: " NAME/FMT=BITS[:STATUS:TEXT]" per value); an
exit's value is the "xray-args" event right after it.
Fails (exit 1) on a CallArgument that is not after an entry of kind 3 or
another CallArgument, on an entry's event that does not match its string
values, or on an "xray-args" event after anything else.

usage: fdr_values.py FILE"""
import struct
import sys

NEW_BUFFER, END_OF_BUFFER, CUSTOM, CALL_ARG, EXTENTS, TYPED = 0, 1, 5, 6, 7, 8
TAG = b"xray-args"
STRING = 5


class Bad(Exception):
    pass


NAMES = {"retval": 0x30}
NAMES.update({"arg%d" % n: 0x10 | n for n in range(1, 9)})
NAMES.update({"fparg%d" % n: 0x20 | n for n in range(1, 9)})
FORMATS = {"d": 1, "u": 2, "x": 3, "p": 4, "s": 5, "f": 6, "f32": 7}
STATUSES = {"ok": 0, "null": 1, "unreadable": 2, "cut": 3, "partial": 4}


def event_values(data):
    """The values of an xray-args payload, printable text: " NAME/FMT=BITS"
    per value, and for a string ":STATUS:TEXT" (hex):
    (what, format, status, bits, text)."""
    try:
        items = data.decode("ascii").split(" ")
        assert items[0] == "xray-args"
        out = []
        for item in items[1:]:
            head, rest = item.split("=")
            name, fmt = head.split("/")
            status, text = 0, b""
            if fmt == "s":
                rest, status, hextext = rest.split(":")
                status, text = STATUSES[status], bytes.fromhex(hextext)
            assert len(rest) == 16
            out.append((NAMES[name], FORMATS[fmt], status, int(rest, 16), text))
        return out
    except (UnicodeDecodeError, AssertionError, KeyError, ValueError) as e:
        raise Bad("xray-args event not well formed: %r (%s)" % (data[:80], e))


def show(values):
    out = []
    for what, fmt, status, bits, text in values:
        v = "%02x.%d.%d=%x" % (what, fmt, status, bits)
        if fmt == STRING:
            v += ":" + text.hex()
        out.append(v)
    return " ".join(out)


def records(data, off, end, version, tid, lines):
    """The records of one block, data[off:end]."""
    pending = None  # (kind, fid, values) of the record an event may follow
    while off < end:
        b = data[off]
        if b & 1 == 0:
            word = struct.unpack_from("<I", data, off)[0]
            kind, fid = (word >> 1) & 7, word >> 4
            off += 8
            values = []
            while kind == 3 and off < end and data[off] == (CALL_ARG << 1 | 1):
                bits = struct.unpack_from("<Q", data, off + 1)[0]
                what, fmt = data[off + 9], data[off + 10]
                if what == 0 and fmt == 0:
                    raise Bad("compiler-rt's argument in a file of captured values")
                # a string's status and text come with the event
                values.append([what, fmt, 2 if fmt == STRING else 0, bits, b""])
                off += 16
            if kind == 3 and not values:
                raise Bad("an entry of kind 3 without values at offset %d" % (off - 8))
            strings = [v for v in values if v[1] == STRING]
            if values and not strings:
                lines.append("T%d F%d enter %s" % (tid, fid, show(values)))
            pending = (kind, fid, values) if strings or kind in (1, 2) else None
            continue
        kind = b >> 1
        size = 16
        if kind in (CUSTOM, TYPED):
            size += struct.unpack_from("<i", data, off + 1)[0]
        payload = data[off + 16:off + size]
        if kind == CUSTOM and payload.startswith(TAG) and payload[len(TAG):len(TAG) + 1] in (b"", b" "):
            if pending is None:
                raise Bad("xray-args event after no record of its own at offset %d" % off)
            rkind, fid, values = pending
            got = event_values(payload)
            if rkind == 3:
                strings = [v for v in values if v[1] == STRING]
                if [(g[0], g[1], g[3]) for g in got] != [(s[0], s[1], s[3]) for s in strings]:
                    raise Bad("entry's event does not match its strings at offset %d" % off)
                for s, g in zip(strings, got):
                    s[2], s[4] = g[2], g[4]
                lines.append("T%d F%d enter %s" % (tid, fid, show(values)))
            else:
                lines.append("T%d F%d exit %s" % (tid, fid, show(got)))
        elif kind == CALL_ARG:
            raise Bad("CallArgument not after an entry of kind 3 at offset %d" % off)
        elif pending and pending[0] == 3:
            raise Bad("an entry's strings without their event at offset %d" % off)
        pending = None
        if kind == END_OF_BUFFER:
            return off + 16
        off += size
    if pending and pending[0] == 3:
        raise Bad("an entry's strings without their event at the block's end")
    return off


def main(path):
    data = open(path, "rb").read()
    version = struct.unpack_from("<H", data, 0)[0]
    off, lines = 32, []
    while off < len(data):
        if version >= 2:
            size = struct.unpack_from("<Q", data, off + 1)[0]
            start, end = off + 16, off + 16 + size
        else:
            start, end = off, len(data)
        tid = struct.unpack_from("<i", data, start + 1)[0]  # NewBuffer
        off = records(data, start, end, version, tid, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except Bad as e:
        print("fdr_values.py: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)
