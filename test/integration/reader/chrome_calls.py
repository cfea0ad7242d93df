"""Reads a Chrome trace JSON written by `xrayctl convert --to chrome` (a
whole JSON array: json.load fails otherwise) and prints "name:calls" per
function, sorted by name: one complete ("X") event per call, cut ones
("args": {"cut": ...}) left out, as llvm-xray account leaves them out."""
import collections
import json
import sys

events = json.load(open(sys.argv[1]))
calls = collections.Counter(
    e["name"] for e in events if e.get("ph") == "X" and "cut" not in e.get("args", {}))
print(" ".join("%s:%d" % (n, calls[n]) for n in sorted(calls)))
