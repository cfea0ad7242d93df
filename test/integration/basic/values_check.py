#!/usr/bin/env python3
"""Checks the argument values of a basic-mode run in all its files.

values_check.py PB2_DIR VALUES YAML JSON PFTRACE

VALUES is the program's output (progs/values.c: one line per value it
handed to the mode's sink: "value TID FUNCTION entry|exit NAME FORMAT
STATUS BITS TEXT", BITS and TEXT in hex); YAML is `llvm-xray convert -f
yaml --symbolize` of the log; JSON and PFTRACE the Chrome and Perfetto
traces written beside it; PB2_DIR holds protoc's xray_perfetto_pb2.py.
Every file must hold every value exactly, by the rules of docs/formats.md
("Argument values" of the basic log, the Chrome trace, the Perfetto
trace):
- the log: the function's record (function-enter-arg for an entry with
  values, function-exit for an exit with a return value) carries, as
  llvm-xray reads its payloads, each value's 64 bits, and after a
  string's the first 8 bytes of each 16 of its text; no other record has
  payloads;
- the JSON: the call's "args" are its values and return value, no more
  (numbers compared by their bits), "<name>.status" for a string not read
  whole; calls without values have no "args";
- the Perfetto trace: the slice's begin has one debug annotation per
  argument, its end one for the return value, each with the field its
  format gives and the exact value.
Prints one line per checked call: "TID FUNCTION values=N".
"""
import collections
import json
import math
import re
import struct
import sys

D, U, X, P, S, F, F32 = 1, 2, 3, 4, 5, 6, 7
OK, NULL, UNREADABLE, CUT, PARTIAL = 0, 1, 2, 3, 4
WORDS = {NULL: "null", UNREADABLE: "unreadable", CUT: "cut", PARTIAL: "partial"}


def fail(msg):
    print("values_check: " + msg, file=sys.stderr)
    sys.exit(1)


Value = collections.namedtuple("Value", "name format status bits text")


def read_values(path):
    calls = collections.defaultdict(list)  # (tid, fn, event) -> [Value]
    for line in open(path):
        f = line.split()
        if not f or f[0] != "value":
            continue
        text = b"" if f[8] == "-" else bytes.fromhex(f[8])
        calls[(int(f[1]), f[2], f[3])].append(
            Value(f[4], int(f[5]), int(f[6]), int(f[7], 16), text))
    if not calls:
        fail("no values in %s" % path)
    return calls


def payload_args(values):
    """The u64s llvm-xray shows for the payloads of these values."""
    out = []
    for v in values:
        out.append(v.bits)
        if v.format == S:
            for i in range(0, len(v.text), 16):
                chunk = (v.text[i:i + 16] + bytes(16))[:8]
                out.append(struct.unpack("<Q", chunk)[0])
    return out


def check_log(calls, path):
    rec = re.compile(r"function: (\S+?),(?: args: \[ ([^]]*) \],)?.* thread: (\d+),.* kind: ([a-z-]+),")
    seen = collections.Counter()
    for line in open(path):
        if "func-id" not in line:
            continue
        m = rec.search(line)
        if not m:
            fail("unread YAML record: " + line.strip())
        fn, args, tid, kind = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        got = [int(a) for a in args.split(",")] if args else []
        event = "entry" if kind.startswith("function-enter") else "exit"
        want = calls.get((tid, fn, event), [])
        if got != payload_args(want):
            fail("%s %s %s: args %r, expected %r" % (tid, fn, kind, got, payload_args(want)))
        if want and event == "entry" and kind != "function-enter-arg":
            fail("%s %s: an entry with values is %s" % (tid, fn, kind))
        seen[(tid, fn, event)] += 1
    for key in calls:
        if seen[key] != 1:
            fail("%r: %d records in the log, expected 1" % (key, seen[key]))


def float_bits(v, f32):
    if f32:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def check_json_value(where, v, got):
    if v.format in (0, D):
        want = v.bits - (1 << 64) if v.bits >> 63 else v.bits
        ok = type(got) is int and got == want
    elif v.format == U:
        ok = type(got) is int and got == v.bits
    elif v.format in (F, F32):
        f32 = v.format == F32
        bits = v.bits & 0xffffffff if f32 else v.bits
        width = 32 if f32 else 64
        exp_mask = (0xff << 23) if f32 else (0x7ff << 52)
        frac = bits & ((1 << (23 if f32 else 52)) - 1)
        if bits & exp_mask == exp_mask:
            want = ("nan:0x%0*x" % (width // 4, bits)) if frac else \
                   ("-inf" if bits >> (width - 1) else "inf")
            ok = got == want
        else:
            ok = type(got) is float and math.isfinite(got) and float_bits(got, f32) == bits
    elif v.format == S:
        if v.status in (NULL, UNREADABLE):
            ok = got is None
        else:
            ok = got == v.text.decode("latin-1")
    else:
        ok = got == "0x%x" % v.bits
    if not ok:
        fail("%s: %s is %r, not the value of %r" % (where, v.name, got, v))


def check_json(calls, path):
    events = json.load(open(path))
    checked = 0
    for ev in events:
        if ev.get("ph") != "X":
            continue
        tid, fn = ev["tid"], ev["name"]
        values = calls.get((tid, fn, "entry"), []) + calls.get((tid, fn, "exit"), [])
        args = dict(ev.get("args", {}))
        if not values:
            if args:
                fail("%s %s: args %r on a call without values" % (tid, fn, args))
            continue
        for v in values:
            check_json_value("%s %s (JSON)" % (tid, fn), v, args.pop(v.name, "missing"))
            if v.format == S and v.status != OK:
                got = args.pop(v.name + ".status", None)
                if got != WORDS[v.status]:
                    fail("%s %s: %s.status %r" % (tid, fn, v.name, got))
        if args:
            fail("%s %s: more args than values: %r" % (tid, fn, args))
        checked += 1
    return checked


def widen(f):
    """A float's bits as the double's the Perfetto writer gives."""
    sign, exp, frac = f >> 31, (f >> 23) & 0xff, f & 0x7fffff
    if exp == 0xff:
        return sign << 63 | 0x7ff << 52 | frac << 29
    if exp == 0 and frac == 0:
        return sign << 63
    if exp == 0:
        e = -126
        while not frac & 0x800000:
            frac <<= 1
            e -= 1
        return sign << 63 | (e + 1023) << 52 | (frac & 0x7fffff) << 29
    return sign << 63 | (exp - 127 + 1023) << 52 | frac << 29


def pf_escape(b):
    return "".join(chr(c) if 0x20 <= c < 0x7f and c != 0x5c else "\\x%02x" % c for c in b)


def expected_notes(values):
    """[(name, field, value)] of the annotations, in order."""
    out = []
    for v in values:
        if v.format in (0, D):
            out.append((v.name, "int_value", v.bits - (1 << 64) if v.bits >> 63 else v.bits))
        elif v.format == U:
            out.append((v.name, "uint_value", v.bits))
        elif v.format == F:
            out.append((v.name, "double_value", v.bits))
        elif v.format == F32:
            out.append((v.name, "double_value", widen(v.bits & 0xffffffff)))
        elif v.format == S and v.status not in (NULL, UNREADABLE):
            out.append((v.name, "string_value", pf_escape(v.text)))
        else:
            out.append((v.name, "pointer_value", v.bits))
        if v.format == S and v.status != OK:
            out.append((v.name + ".status", "string_value", WORDS[v.status]))
    return out


def notes_of(annotations):
    out = []
    for a in annotations:
        fields = [(f.name, val) for f, val in a.ListFields() if f.name != "name"]
        if len(fields) != 1:
            fail("annotation %s has fields %r" % (a.name, fields))
        field, val = fields[0]
        if field == "double_value":
            val = struct.unpack("<Q", struct.pack("<d", val))[0]
        out.append((a.name, field, val))
    return out


def check_perfetto(calls, pb2_dir, path):
    sys.path.insert(0, pb2_dir)
    import xray_perfetto_pb2 as pb  # noqa: E402
    trace = pb.Trace()
    trace.ParseFromString(open(path, "rb").read())
    tids, names, defaults = {}, collections.defaultdict(dict), {}
    stacks = collections.defaultdict(list)
    checked = 0
    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        if p.HasField("track_descriptor") and p.track_descriptor.HasField("thread"):
            tids[p.track_descriptor.uuid] = p.track_descriptor.thread.tid
        if p.HasField("trace_packet_defaults"):
            defaults[seq] = p.trace_packet_defaults.track_event_defaults.track_uuid
        for en in p.interned_data.event_names:
            names[seq][en.iid] = en.name
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        track = te.track_uuid if te.HasField("track_uuid") else defaults.get(seq)
        if te.type == 1:
            name = names[seq][te.name_iid] if te.HasField("name_iid") else te.name
            stacks[track].append((name, notes_of(te.debug_annotations)))
        elif te.type == 2:
            name, begin = stacks[track].pop()
            end = [n for n in notes_of(te.debug_annotations) if n[0] != "cut"]
            tid = tids[track]
            want_begin = expected_notes(calls.get((tid, name, "entry"), []))
            want_end = expected_notes(calls.get((tid, name, "exit"), []))
            if begin != want_begin:
                fail("%s %s (Perfetto) begin: %r, expected %r" % (tid, name, begin, want_begin))
            if end != want_end:
                fail("%s %s (Perfetto) end: %r, expected %r" % (tid, name, end, want_end))
            checked += bool(want_begin or want_end)
    return checked


def main():
    pb2_dir, values, yaml, chrome, pftrace = sys.argv[1:6]
    calls = read_values(values)
    check_log(calls, yaml)
    n_json = check_json(calls, chrome)
    n_pf = check_perfetto(calls, pb2_dir, pftrace)
    functions = sorted({(tid, fn) for tid, fn, _ in calls})
    if n_json != len(functions) or n_pf != len(functions):
        fail("%d calls with values; the JSON has %d, the Perfetto trace %d"
             % (len(functions), n_json, n_pf))
    for tid, fn in functions:
        n = len(calls.get((tid, fn, "entry"), [])) + len(calls.get((tid, fn, "exit"), []))
        print("%d %s values=%d" % (tid, fn, n))


main()
