#!/usr/bin/env python3
"""Checks that each output of names.long holds the long names whole:

    long_check.py want WANT            the names are what the test needs
    long_check.py map WANT MAP         <log>.map (basic, FDR)
    long_check.py json WANT JSON       <log>.json (Chrome trace events)
    long_check.py folded WANT FOLDED   folded stacks (folded_value=calls)
    long_check.py report WANT TXT      the profiling report
    long_check.py pprof WANT RAW SYMS  `go tool pprof -raw` of the profile;
                                       SYMS: the ELF symbols of WANT's names
    long_check.py made_up FILE NM FOLDED  a deleted object's made-up names

WANT holds one name per line: exe_all, plugin_all and the three long ones
of each object (long_gen.py). Names are compared byte for byte."""
import collections, json, re, sys

def fail(msg):
    sys.exit("long_check: " + msg)

def read_want(path):
    return open(path, encoding="latin-1").read().splitlines()

def owner(name):
    return "exe" if "exe_" in name else "plugin"

def expect_names(what, got, want):
    """got (a list) holds each wanted name exactly once, and nothing else."""
    extra = collections.Counter(got) - collections.Counter(want)
    missing = collections.Counter(want) - collections.Counter(got)
    if extra or missing:
        short = lambda c: ["%s... (%d chars) x%d" % (n[:60], len(n), k) for n, k in c.items()]
        fail("%s: missing %s, unexpected %s" % (what, short(missing), short(extra)))

def check_want(want):
    if len(want) != 8 or sorted(w for w in want if len(w) < 20000) != ["exe_all", "plugin_all"]:
        fail("want: expected exe_all, plugin_all and six names over 20000 chars, got %s"
             % [(w[:40], len(w)) for w in want])
    if collections.Counter(owner(w) for w in want) != {"exe": 4, "plugin": 4}:
        fail("want: not four names per object")

def check_map(want, path):
    data = open(path, "rb").read()
    if not data.endswith(b"\n"):
        fail("%s does not end with a newline" % path)
    names, declared = [], 0
    for line in data.decode("latin-1").split("\n")[:-1]:
        if line.startswith("object "):
            declared += int(line.split()[6])  # "object ID STATE base B functions N ..."
        elif line.startswith("function "):
            names.append(line.split(" ", 4)[4])
        elif not line.startswith("# "):
            fail("%s: unexpected line %r" % (path, line[:80]))
    if declared != len(names):
        fail("%s: objects declare %d functions, %d function lines" % (path, declared, len(names)))
    expect_names(path, names, want)

def check_json(want, path):
    events = json.load(open(path, encoding="utf-8"))
    expect_names(path, [e["name"] for e in events if e["ph"] == "X"], want)

def folded(name):
    return re.sub(r"[; \n\t]", "_", name)

def check_folded(want, path):
    lines = open(path, encoding="latin-1").read().splitlines()
    expected = []
    for root in ("exe_all", "plugin_all"):
        expected.append(root + " 1")
        expected += ["%s;%s 1" % (root, folded(w)) for w in want
                     if owner(w) == owner(root) and w != root]
    if sorted(lines) != sorted(expected):
        expect_names(path, lines, expected)
        fail("%s: lines differ" % path)

def check_report(want, path):
    names = []
    for line in open(path, encoding="latin-1").read().splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r" *(\S+ +){3}(\d+) +(\S+ +){3} ", line)
        if not m or m.group(2) != "1":
            fail("%s: row without 1 call: %r" % (path, line[:120]))
        names.append(line[m.end():])
    expect_names(path, names, want)

def check_pprof(want, path, symbols_path):
    """Names as written (pprof -symbolize=none: no demangling of its own);
    the system name, shown when it differs, is the ELF symbol."""
    # "Locations" rows: "     1: 0xADDR M=1 NAME :0 s=0" and "(SYMBOL)"
    text = open(path, encoding="latin-1").read()
    locations = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
    names, systems = [], []
    for line in locations.splitlines():
        m = re.match(r" +\d+: 0x[0-9a-f]+ M=\d+ (.*) :0 s=0(\((.*)\))?$", line)
        if not m:
            fail("%s: unexpected location line %r" % (path, line[:120]))
        names.append(m.group(1))
        if m.group(3) is not None:
            systems.append(m.group(3))
    expect_names(path, names, want)
    symbols = read_want(symbols_path)
    expect_names(path + " (system names)", systems,
                 [s for s, w in zip(symbols, want) if s != w])

def check_made_up(file, nm_path, path):
    offsets = set()
    for line in open(nm_path).read().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWw" and "plugin_" in f[2]:
            offsets.add(int(f[0], 16))
    got = collections.Counter()
    for line in open(path, encoding="latin-1").read().splitlines():
        frames, value = line.rsplit(" ", 1)
        for frame in frames.split(";"):
            if frame.startswith("fn"):
                m = re.fullmatch(r"fn\d+@(.*)\+0x([0-9a-f]+)", frame)
                if not m or m.group(1) != file:
                    fail("%s: made-up name %r is not fn<id>@%s+0x<offset>"
                         % (path, frame[:300], file[:20] + "..."))
                got[int(m.group(2), 16)] += int(value)
    # plugin_all once, and each of its three callees once under it
    if set(got) != offsets or sorted(got.values()) != [1, 1, 1, 4]:
        fail("%s: made-up names at %s, want the plugin's functions %s"
             % (path, sorted(map(hex, got)), sorted(map(hex, offsets))))

if __name__ == "__main__":
    cmd, want = sys.argv[1], None
    if cmd == "made_up":
        check_made_up(*sys.argv[2:5])
        sys.exit(0)
    if cmd == "pprof":
        check_pprof(read_want(sys.argv[2]), sys.argv[3], sys.argv[4])
        sys.exit(0)
    want = read_want(sys.argv[2])
    if cmd == "want":
        check_want(want)
    else:
        {"map": check_map, "json": check_json, "folded": check_folded,
         "report": check_report}[cmd](want, sys.argv[3])
