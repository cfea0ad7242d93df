#!/usr/bin/env python3
"""Reads a profile with the real pprof client and prints what it shows:

    pprof_read.py traces FILE SAMPLE   one line per call path, root first:
                                       "a;b;c <value>" (go tool pprof -traces)
    pprof_read.py top FILE SAMPLE      one line per function, "<name> <flat>"
                                       (go tool pprof -top), then
                                       "total <value>"

SAMPLE is calls or time; times are read in nanoseconds (-unit=ns)."""
import re, subprocess, sys

def pprof(args):
    return subprocess.run(["go", "tool", "pprof"] + args, check=True,
                          capture_output=True, text=True).stdout

def number(text):
    m = re.fullmatch(r"(\d+)(ns)?", text)
    if not m:
        sys.exit("unexpected value %r" % text)
    return int(m.group(1))

def traces(path, sample):
    out = pprof(["-traces", "-sample_index=" + sample, "-unit=ns", path])
    paths = {}
    for block in out.split("-----------+")[1:]:
        lines = [l for l in block.splitlines()[1:] if l.strip()]
        if not lines:
            continue
        value, leaf = lines[0].split(None, 1)
        frames = [leaf.strip()] + [l.strip() for l in lines[1:]]
        key = ";".join(reversed(frames))
        paths[key] = paths.get(key, 0) + number(value)
    for key in sorted(paths):
        print(key, paths[key])

def top(path, sample):
    out = pprof(["-top", "-sample_index=" + sample, "-unit=ns",
                 "-nodecount=1000", path])
    m = re.search(r"of (\S+) total", out)
    rows = out.split("flat  flat%   sum%        cum   cum%\n", 1)[1]
    for line in rows.splitlines():
        cols = line.split()
        print(cols[5], number(cols[0]))
    print("total", number(m.group(1)))

if __name__ == "__main__":
    {"traces": traces, "top": top}[sys.argv[1]](sys.argv[2], sys.argv[3])
