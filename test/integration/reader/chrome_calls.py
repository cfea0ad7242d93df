"""Reads a Chrome trace JSON written by `xrayctl convert --to chrome` (a
whole JSON array: json.load fails otherwise) and prints "name:calls" per
function, sorted by name: one complete ("X") event per call, cut ones
("args": {"cut": ...}) left out, as llvm-xray account leaves them out.

--same-as JSON: the runtime's own JSON of the same log (trace_output=
xray+chrome) must hold the same calls: every complete event's name, pid,
tid and cut mark, its start shifted by one constant and its duration the
same, both to the nanosecond the rounding allows (the two files count time
from different moments, and each rounds its own ticks down); exits 1
otherwise. Prints the count of each mark."""
import collections
import json
import sys


def calls_of(path):
    return [e for e in json.load(open(path)) if e.get("ph") == "X"]


def key(e):
    return (e["name"], e["pid"], e["tid"], e.get("args", {}).get("cut", ""))


def main():
    ours = calls_of(sys.argv[1])
    if len(sys.argv) == 4 and sys.argv[2] == "--same-as":
        theirs = calls_of(sys.argv[3])
        a = sorted(ours, key=lambda e: (key(e), e["ts"]))
        b = sorted(theirs, key=lambda e: (key(e), e["ts"]))
        if [key(e) for e in a] != [key(e) for e in b]:
            sys.exit("FAIL: the calls differ from the runtime's JSON (%d against %d)"
                     % (len(a), len(b)))
        shifts = [x["ts"] - y["ts"] for x, y in zip(a, b)]
        if shifts and max(shifts) - min(shifts) > 0.0015:
            sys.exit("FAIL: starts shifted by %.3f to %.3f us" % (min(shifts), max(shifts)))
        for x, y in zip(a, b):
            if abs(x["dur"] - y["dur"]) > 0.0015:
                sys.exit("FAIL: %s lasts %.3f us, %.3f in the runtime's JSON"
                         % (x["name"], x["dur"], y["dur"]))
        marks = collections.Counter(e.get("args", {}).get("cut", "") for e in a)
        print(" ".join("%s=%d" % (m or "whole", marks[m]) for m in sorted(marks)))
        return
    calls = collections.Counter(e["name"] for e in ours if "cut" not in e.get("args", {}))
    print(" ".join("%s:%d" % (n, calls[n]) for n in sorted(calls)))


main()
