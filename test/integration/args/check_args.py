#!/usr/bin/env python3
"""What args_prog's calls passed (expect.txt, written by the program) against
what each output recorded, bit for bit.

  check_args.py spec ARCH                  the SPEC the tests give (one line)
  check_args.py yaml-fdr EXPECT YAML ARCH  llvm-xray convert -output-format=yaml
  check_args.py yaml-basic EXPECT YAML ARCH
  check_args.py chrome EXPECT JSON ARCH    a Chrome trace (the runtime's, xrayctl's)
  check_args.py perfetto EXPECT PFTRACE PBDIR ARCH

Prints "ok: N values" and exits 0, or names the first value that differs and
exits 1. ARCH: x86_64 or aarch64 (AArch64 passes integer arguments 7 and 8 in
registers too: int8_args is captured there only).
"""
import json
import math
import struct
import sys

INT = [("arg%d" % i, "d") for i in range(1, 7)]
FP = [("fparg%d" % i, "f") for i in range(1, 9)]


def spec_table(arch):
    t = [
        ("int_args", INT + [("retval", "d")]),
        ("ptr_args", [("arg1", "p"), ("arg2", "u"), ("arg3", "x"), ("retval", "p")]),
        ("fp_args", FP + [("retval", "f")]),
        ("float_args", [("fparg1", "f32"), ("fparg2", "f32"), ("retval", "f32")]),
        ("mixed", [("arg1", "d"), ("fparg1", "f"), ("arg2", "u"), ("fparg2", "f32"),
                   ("retval", "x")]),
        ("spair", [("arg1", "d"), ("arg2", "d"), ("retval", "d")]),
        ("dpair", [("fparg1", "f"), ("fparg2", "f"), ("retval", "f")]),
        ("str_arg", [("arg1", "s"), ("retval", "s")]),
    ]
    if arch == "aarch64":
        t.insert(1, ("int8_args", [("arg7", "d"), ("arg8", "d"), ("retval", "d")]))
    return t


def spec_text(arch):
    return ";".join("%s@%s" % (fn, ",".join("%s/%s" % v for v in vals))
                    for fn, vals in spec_table(arch))


class Want:
    """One call's expected values: name -> (bits, status, text bytes)."""

    def __init__(self):
        self.values = {}


def read_expect(path, arch):
    """fn -> list of calls (Want), in call order."""
    calls = {}
    for line in open(path):
        f = line.split()
        fn, name, bits = f[0], f[1], int(f[2], 16)
        status, text = (f[3], bytes.fromhex(f[4]) if len(f) > 4 else b"") if len(f) > 3 else (None, b"")
        lst = calls.setdefault(fn, [])
        if not lst or name in lst[-1].values:
            lst.append(Want())
        lst[-1].values[name] = (bits, status, text)
    # str_arg returns its argument: its retval is the same string
    for w in calls.get("str_arg", []):
        w.values["retval"] = w.values["arg1"]
    for fn, vals in spec_table(arch):
        for w in calls.get(fn, []):
            assert set(w.values) == {n for n, _ in vals}, (fn, sorted(w.values))
    return calls


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def same_bits(where, fmt, want_bits, got_bits):
    mask = 0xFFFFFFFF if fmt == "f32" else 0xFFFFFFFFFFFFFFFF
    if (want_bits & mask) != (got_bits & mask):
        fail("%s: expected bits 0x%x, got 0x%x" % (where, want_bits & mask, got_bits & mask))


# ---- the FDR custom event "xray-args" (docs/formats.md) ---------------------
def parse_event(text):
    """name -> (format, bits, status, text) of an "xray-args ..." event."""
    assert text.startswith("xray-args "), text
    out = {}
    for item in text[len("xray-args "):].split(" "):
        head, _, rest = item.partition("=")
        name, fmt = head.split("/")
        if fmt == "s":
            bits, status, hextext = rest.split(":")
            out[name] = (fmt, int(bits, 16), status, bytes.fromhex(hextext))
        else:
            out[name] = (fmt, int(rest, 16), None, b"")
    return out


def load_yaml(path):
    import yaml
    doc = yaml.safe_load(open(path))
    return doc["records"]


def by_thread(records):
    threads = {}
    for r in records:
        threads.setdefault(r["thread"], []).append(r)
    return threads


def yaml_fdr(expect, path, arch):
    calls = read_expect(expect, arch)
    table = dict(spec_table(arch))
    seen = {fn: 0 for fn in table}
    checked = 0
    for recs in by_thread(load_yaml(path)).values():
        stack = []
        for i, r in enumerate(recs):
            kind, fn = r["kind"], r["function"]
            if kind.startswith("function-enter"):
                stack.append(fn)
                if fn not in table:
                    continue
                k = seen[fn]
                seen[fn] += 1
                want = calls[fn][k]
                entry = [v for v in table[fn] if v[0] != "retval"]
                args = r.get("args") or []
                if kind != "function-enter-arg" or len(args) != len(entry):
                    fail("%s call %d: entry %s with args %s, expected %d values"
                         % (fn, k, kind, args, len(entry)))
                strings = {}
                if any(f == "s" for _, f in entry):
                    nxt = recs[i + 1]
                    if nxt["kind"] != "custom-event":
                        fail("%s call %d: no string event after the entry" % (fn, k))
                    strings = parse_event(nxt["data"])
                for (name, fmt), got in zip(entry, args):
                    bits, status, text = want.values[name]
                    same_bits("%s call %d %s" % (fn, k, name), fmt, bits, got)
                    if fmt == "s":
                        ev = strings[name]
                        if (ev[1], ev[2], ev[3]) != (bits, status, text):
                            fail("%s call %d %s: event %s, expected %s"
                                 % (fn, k, name, ev, (bits, status, text)))
                    checked += 1
            elif kind in ("function-exit", "function-tail-exit"):
                top = stack.pop() if stack else None
                if fn not in table or not any(n == "retval" for n, _ in table[fn]):
                    continue
                k = seen[fn] - 1
                want = calls[fn][k]
                fmt = dict(table[fn])["retval"]
                nxt = recs[i + 1] if i + 1 < len(recs) else None
                if nxt is None or nxt["kind"] != "custom-event":
                    fail("%s call %d: no return-value event after the exit" % (fn, k))
                ev = parse_event(nxt["data"])["retval"]
                bits, status, text = want.values["retval"]
                if ev[0] != fmt:
                    fail("%s call %d retval: format %s, expected %s" % (fn, k, ev[0], fmt))
                same_bits("%s call %d retval" % (fn, k), fmt, bits, ev[1])
                if fmt == "s" and (ev[2], ev[3]) != (status, text):
                    fail("%s call %d retval: %s, expected %s" % (fn, k, ev, (status, text)))
                checked += 1
                del top
    for fn, lst in calls.items():
        if seen.get(fn) != len(lst):
            fail("%s: %s calls in the log, %d made" % (fn, seen.get(fn), len(lst)))
    print("ok: %d values" % checked)


def text_words(text):
    """The u64s llvm-xray shows for a basic string's text records: bytes 0-7
    of each 16-byte piece (bytes 8-15 sit where llvm-xray does not read)."""
    out = []
    for at in range(0, len(text), 16):
        piece = text[at:at + 8].ljust(8, b"\0")
        out.append(struct.unpack("<Q", piece)[0])
    return out


def yaml_basic(expect, path, arch):
    calls = read_expect(expect, arch)
    table = dict(spec_table(arch))
    seen = {fn: 0 for fn in table}
    checked = 0
    for recs in by_thread(load_yaml(path)).values():
        for r in recs:
            kind, fn = r["kind"], r["function"]
            if fn not in table:
                continue
            if kind.startswith("function-enter"):
                k = seen[fn]
                seen[fn] += 1
                vals = [v for v in table[fn] if v[0] != "retval"]
                if kind != "function-enter-arg":
                    fail("%s call %d: entry kind %s" % (fn, k, kind))
            elif kind == "function-exit":
                k = seen[fn] - 1
                vals = [v for v in table[fn] if v[0] == "retval"]
            else:
                continue
            want = calls[fn][k]
            expected = []
            for name, fmt in vals:
                bits, status, text = want.values[name]
                expected.append(("%s %s" % (name, fmt), fmt, bits))
                if fmt == "s":
                    expected += [("%s text" % name, "x", w) for w in text_words(text)]
            args = r.get("args") or []
            if len(args) != len(expected):
                fail("%s call %d %s: %d payloads %s, expected %d"
                     % (fn, k, kind, len(args), args, len(expected)))
            for (what, fmt, bits), got in zip(expected, args):
                same_bits("%s call %d %s" % (fn, k, what), fmt, bits, got)
                checked += 1
    for fn, lst in calls.items():
        if seen.get(fn) != len(lst):
            fail("%s: %s calls in the log, %d made" % (fn, seen.get(fn), len(lst)))
    print("ok: %d values" % checked)


# ---- Chrome JSON and Perfetto: values as the writers show them ------------
def json_bits(where, fmt, v):
    """The bits a Chrome value stands for (docs/formats.md)."""
    if fmt in ("d", "u"):
        if not isinstance(v, int) or isinstance(v, bool):
            fail("%s: /%s as %r, expected a JSON integer" % (where, fmt, v))
        return v & 0xFFFFFFFFFFFFFFFF
    if fmt in ("x", "p"):
        if not (isinstance(v, str) and v.startswith("0x")):
            fail("%s: /%s as %r, expected \"0x...\"" % (where, fmt, v))
        return int(v, 16)
    if fmt in ("f", "f32"):
        pack, unpack = ("<d", "<Q") if fmt == "f" else ("<f", "<I")
        if isinstance(v, str):
            if v.startswith("nan:0x"):
                return int(v[6:], 16)
            if v in ("inf", "-inf"):
                return struct.unpack(unpack, struct.pack(pack, float(v)))[0]
            fail("%s: %r" % (where, v))
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            fail("%s: /%s as %r" % (where, fmt, v))
        if isinstance(v, float) and math.isnan(v):
            fail("%s: a NaN as a number" % where)
        return struct.unpack(unpack, struct.pack(pack, float(v)))[0]
    fail("%s: format %s" % (where, fmt))


def chrome(expect, path, arch):
    calls = read_expect(expect, arch)
    table = dict(spec_table(arch))
    events = [e for e in json.load(open(path)) if e.get("ph") == "X" and e["name"] in table]
    events.sort(key=lambda e: (e["tid"], e["ts"]))
    seen = {fn: 0 for fn in table}
    checked = 0
    for e in events:
        fn = e["name"]
        k = seen[fn]
        seen[fn] += 1
        want = calls[fn][k]
        args = e.get("args", {})
        names = {n for n, _ in table[fn]}
        extra = set(args) - names - {n + ".status" for n in names}
        if extra:
            fail("%s call %d: unexpected args %s" % (fn, k, sorted(extra)))
        for name, fmt in table[fn]:
            where = "%s call %d %s" % (fn, k, name)
            if name not in args:
                fail("%s: missing (args %s)" % (where, args))
            bits, status, text = want.values[name]
            got = args[name]
            if fmt == "s":
                status_got = args.get(name + ".status", "ok")
                if status_got != status:
                    fail("%s: status %r, expected %r" % (where, status_got, status))
                if status in ("null", "unreadable"):
                    if got is not None:
                        fail("%s: %r, expected null" % (where, got))
                elif got != text.decode("latin-1"):
                    fail("%s: %r, expected %r" % (where, got, text))
            else:
                same_bits(where, fmt, bits, json_bits(where, fmt, got))
            checked += 1
    for fn, lst in calls.items():
        if seen.get(fn) != len(lst):
            fail("%s: %s slices, %d calls made" % (fn, seen.get(fn), len(lst)))
    print("ok: %d values" % checked)


def widen(f):
    """A float's bits as the double's bits it widens to exactly."""
    return struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", f))[0]))[0] \
        if (f >> 23) & 0xff != 0xff else (f >> 31) << 63 | 0x7ff << 52 | (f & 0x7fffff) << 29


def perfetto_notes(fmt, name, bits, status, text):
    """The annotations a value gives (docs/formats.md): (name, field, value)."""
    if fmt == "d":
        out = [(name, "int_value", bits - (1 << 64) if bits >> 63 else bits)]
    elif fmt == "u":
        out = [(name, "uint_value", bits)]
    elif fmt == "f":
        out = [(name, "double_value", bits)]
    elif fmt == "f32":
        out = [(name, "double_value", widen(bits & 0xFFFFFFFF))]
    elif fmt == "s" and status not in ("null", "unreadable"):
        # printable ASCII as it is, every other byte and the backslash as \xNN
        out = [(name, "string_value", "".join(
            chr(c) if 0x20 <= c < 0x7f and c != 0x5c else "\\x%02x" % c for c in text))]
    else:
        out = [(name, "pointer_value", bits)]
    if fmt == "s" and status != "ok":
        out.append((name + ".status", "string_value", status))
    return out


def perfetto(expect, path, pb_dir, arch):
    sys.path.insert(0, pb_dir)
    import xray_perfetto_pb2 as pb
    calls = read_expect(expect, arch)
    table = dict(spec_table(arch))
    trace = pb.Trace()
    trace.ParseFromString(open(path, "rb").read())
    names, defaults, stacks = {}, {}, {}
    seen = {fn: 0 for fn in table}
    checked = 0

    def notes(annotations):
        out = []
        for a in annotations:
            fields = [(f.name, v) for f, v in a.ListFields() if f.name != "name"]
            assert len(fields) == 1, (a.name, fields)
            field, v = fields[0]
            if field == "double_value":
                v = struct.unpack("<Q", struct.pack("<d", v))[0]
            out.append((a.name, field, v))
        return out

    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        if p.HasField("trace_packet_defaults"):
            defaults[seq] = p.trace_packet_defaults.track_event_defaults.track_uuid
        for en in p.interned_data.event_names:
            names[(seq, en.iid)] = en.name
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        track = te.track_uuid if te.HasField("track_uuid") else defaults.get(seq)
        st = stacks.setdefault(track, [])
        if te.type == 1:
            name = names[(seq, te.name_iid)] if te.HasField("name_iid") else te.name
            k = None
            if name in table:
                k = seen[name]
                seen[name] += 1
            st.append((name, k, notes(te.debug_annotations)))
        elif te.type == 2:
            name, k, begin = st.pop()
            if name not in table:
                continue
            end = notes(te.debug_annotations)
            want = calls[name][k]
            wb, we = [], []
            for vname, fmt in table[name]:
                bits, status, text = want.values[vname]
                (we if vname == "retval" else wb).extend(
                    perfetto_notes(fmt, vname, bits, status, text))
            if begin != wb:
                fail("%s call %d (Perfetto) begin: %r, expected %r" % (name, k, begin, wb))
            if end != we:
                fail("%s call %d (Perfetto) end: %r, expected %r" % (name, k, end, we))
            checked += len(table[name])
    for fn, lst in calls.items():
        if seen.get(fn) != len(lst):
            fail("%s: %s slices, %d calls made" % (fn, seen.get(fn), len(lst)))
    print("ok: %d values" % checked)


def main(argv):
    cmd = argv[1]
    if cmd == "spec":
        print(spec_text(argv[2]))
    elif cmd == "yaml-fdr":
        yaml_fdr(argv[2], argv[3], argv[4])
    elif cmd == "yaml-basic":
        yaml_basic(argv[2], argv[3], argv[4])
    elif cmd == "chrome":
        chrome(argv[2], argv[3], argv[4])
    elif cmd == "perfetto":
        perfetto(argv[2], argv[3], argv[4], argv[5])
    else:
        fail("usage: see the head of this file")


if __name__ == "__main__":
    main(sys.argv)
