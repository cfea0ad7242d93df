#!/usr/bin/env python3
"""Checks a Chrome trace JSON written by trace_output=chrome.

chrome_check.py OURS [--cut] [--ref CONVERT.json] [--account ACCOUNT.csv]...

- parses OURS with json (with --cut: a file cut off between events, so it
  must not end in ']' and OURS + ']' must parse);
- every complete ("X") event has name, ts, dur, pid, tid; the events of each
  thread nest (a child ends no later than its parent, to the nanosecond);
- --ref (repeatable): `llvm-xray convert -f trace_event` of the same log: the same number
  of calls per function (B/E pairs) and the same total duration per function
  (within 1 us per call for the two tools' rounding);
- --account: `llvm-xray account -format=csv` of the same log (repeatable):
  the same calls per function, the same total time within 1 us per call
  plus 1e-6 relative (account prints seconds with 6 decimals).
Prints "name:calls" per function (sorted, calls marked no-entry left out:
the binary log drops their exits), then "marks:" with the cut marks.
"""
import collections
import csv
import json
import sys
from decimal import Decimal


def ns(text):
    return int(Decimal(str(text)) * 1000)


def fail(msg):
    print("chrome_check: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path, cut):
    text = open(path, encoding="utf-8").read()
    if cut:
        if text.rstrip().endswith("]"):
            fail("--cut: the file is complete")
        text += "]"
    try:
        data = json.loads(text)
    except ValueError as e:
        fail("%s is not valid JSON: %s" % (path, e))
    return data["traceEvents"] if isinstance(data, dict) else data


def ours_stats(events):
    calls = collections.Counter()
    total = collections.Counter()
    marks = collections.Counter()
    per_thread = collections.defaultdict(list)
    # calls whose entry the trace lost ("no-entry") are not in the binary
    # log (their exits are dropped there), so comparisons leave them out
    for e in events:
        if e.get("ph") != "X":
            continue
        for k in ("name", "ts", "dur", "pid", "tid"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        b = ns(e["ts"])
        d = ns(e["dur"])
        cut = e.get("args", {}).get("cut")
        if cut:
            marks[cut] += 1
        if cut != "no-entry":
            calls[e["name"]] += 1
            total[e["name"]] += d
        per_thread[(e["pid"], e["tid"])].append((b, -d, e["name"]))
    for key, spans in per_thread.items():
        spans.sort()
        stack = []
        for b, negd, name in spans:
            end = b - negd
            while stack and stack[-1][0] <= b:
                stack.pop()
            if stack and end > stack[-1][0]:
                fail("thread %r: %s [%d, %d] overlaps its parent %s ending %d"
                     % (key, name, b, end, stack[-1][1], stack[-1][0]))
            stack.append((end, name))
    return calls, total, marks


def ref_stats(path):
    events = load(path, False)
    calls = collections.Counter()
    total = collections.Counter()
    stacks = collections.defaultdict(list)
    for e in events:
        key = (e["pid"], e["tid"])
        if e["ph"] == "B":
            stacks[key].append((e["name"], ns(e["ts"])))
        elif e["ph"] == "E":
            name, b = stacks[key].pop()
            calls[name] += 1
            total[name] += ns(e["ts"]) - b
    return calls, total


def account_stats(path):
    calls = collections.Counter()
    total = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            calls[row["function"]] += int(row["count"])
            total[row["function"]] = Decimal(row["sum"]) * 10**9
    return calls, total


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    cut = "--cut" in args
    events = load(path, cut)
    calls, total, marks = ours_stats(events)
    for i, a in enumerate(args):
        if a != "--ref":
            continue
        rcalls, rtotal = ref_stats(args[i + 1])
        if rcalls != calls:
            fail("calls differ from llvm-xray convert (%s): ours %r, convert %r"
                 % (args[i + 1], dict(calls), dict(rcalls)))
        for name in calls:
            if abs(total[name] - rtotal[name]) > 1000 * calls[name]:
                fail("%s: total %d ns, convert %d ns" % (name, total[name], rtotal[name]))
    for i, a in enumerate(args):
        if a != "--account":
            continue
        acalls, atotal = account_stats(args[i + 1])
        if acalls != calls:
            fail("calls differ from llvm-xray account (%s): ours %r, account %r"
                 % (args[i + 1], dict(calls), dict(acalls)))
        for name in calls:
            slack = 1000 * calls[name] + total[name] / 10**6
            if abs(Decimal(total[name]) - atotal[name]) > slack:
                fail("%s: total %d ns, account %s ns" % (name, total[name], atotal[name]))
    for name in sorted(calls):
        print("%s:%d" % (name, calls[name]))
    print("marks:" + ",".join("%s=%d" % kv for kv in sorted(marks.items())))


main()
