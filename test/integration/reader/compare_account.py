"""Compares `xrayctl report --csv` with what llvm-xray says of a trace.

--account CSV: `llvm-xray account -format=csv` (sums in seconds, printed
with 7 significant digits): per function id, calls equal and the total
within half a unit of account's last printed digit (plus 1 ns: ours is
rounded down to whole nanoseconds).
--yaml FILE: `llvm-xray convert -f yaml` of a trace account cannot read (a
compiler-rt FDR log of concurrent threads: account rejects any record older
than the first it reads): account's rule applied to llvm-xray's own
decoding (per thread, an exit that matches the top of the stack ends that
call), sums exact in ticks, then floored to ns.
Prints "id:calls" per function, sorted by id; exits 1 on a difference.
"""
import argparse
import csv
import math
import re
import sys


def ours(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[int(r["id"])] = (int(r["calls"]), int(r["total_ns"]))
    return rows


def account(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[int(r["funcid"])] = (int(r["count"]), r["sum"])
    return rows


def from_yaml(path):
    freq, stacks, rows = None, {}, {}
    rec = re.compile(r"func-id:\s*(\d+).*thread:\s*(\d+).*kind:\s*([a-z-]+).*tsc:\s*(\d+)")
    with open(path) as f:
        for line in f:
            m = re.search(r"cycle-frequency:\s*(\d+)", line)
            if m:
                freq = int(m.group(1))
                continue
            m = rec.search(line)
            if not m:
                continue
            fid, tid, kind, tsc = int(m.group(1)), m.group(2), m.group(3), int(m.group(4))
            st = stacks.setdefault(tid, [])
            if kind.startswith("function-enter"):
                st.append((fid, tsc))
            elif kind in ("function-exit", "function-tail-exit"):
                if st and st[-1][0] == fid:
                    _, t0 = st.pop()
                    c, s = rows.get(fid, (0, 0))
                    rows[fid] = (c + 1, s + abs(tsc - t0))
    if not freq:
        sys.exit("no cycle-frequency in " + path)
    return {k: (c, s * 10**9 // freq) for k, (c, s) in rows.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--account")
    g.add_argument("--yaml")
    a = ap.parse_args()
    got = ours(a.report)
    want = account(a.account) if a.account else from_yaml(a.yaml)
    bad = []
    if sorted(got) != sorted(want):
        bad.append("functions: ours %s, llvm-xray's %s" % (sorted(got), sorted(want)))
    for fid in sorted(set(got) & set(want)):
        (c, ns), (wc, ws) = got[fid], want[fid]
        if c != wc:
            bad.append("function %d: %d calls, llvm-xray %d" % (fid, c, wc))
        if a.account:
            s = float(ws)
            unit = 10 ** (math.floor(math.log10(s)) - 6) if s > 0 else 1e-9
            if abs(ns / 1e9 - s) > unit / 2 + 1e-9:
                bad.append("function %d: total %d ns, account %s s" % (fid, ns, ws))
        elif ns != ws:
            bad.append("function %d: total %d ns, from llvm-xray's records %d" % (fid, ns, ws))
    if bad:
        sys.exit("FAIL: " + "; ".join(bad))
    print(" ".join("%d:%d" % (k, got[k][0]) for k in sorted(got)))


main()
