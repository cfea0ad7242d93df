#!/usr/bin/env python3
"""Every call of a basic or FDR log, or of a Chrome trace, and how it ended:

    name calls=N exit=N tail=N unwound=N open=N

one line per function, sorted by name. A call ends by its exit (`exit`), its
tail exit (`tail`), or an exit the runtime wrote because unwinding skipped
the real one (`unwound`: in a basic log, bit 0 of byte 24; in an FDR log,
the N exits that follow a custom event "xray-unwound N"); `open`: no end in
the file. Chrome traces have no exit kinds: calls=, unwound= (slices marked
"unwound") and open= (marked "open") only.

It also fails (status 1, saying where) unless the log is well nested per
thread: every exit is the exit of the call on top of that thread's stack,
and every unwound exit carries the time of the next record of its thread
(the event that found the call gone), which exists.

usage: calls.py basic LOG NAMES
       calls.py fdr LOG NAMES
       calls.py chrome JSON
       calls.py account CSV NAMES: "name count" of llvm-xray account's CSV
NAMES: a <log>.map (the ids of a log of several objects), or the program,
whose ids llvm-xray extract --symbolize names (LLVM_XRAY in the
environment: which llvm-xray)."""
import collections
import json
import os
import re
import struct
import subprocess
import sys

ENTER, EXIT, TAIL = "enter", "exit", "tail"
# Set when the program has exits the runtime drops (calls that began before
# recording): unwound exits such an exit found carry its time, which no
# record of the log holds.
DROPPED_EXITS = os.environ.get("EXC_DROPPED_EXITS") == "1"


def names_of(source):
    if source.endswith(".map"):
        names = {}
        for line in open(source):
            f = line.rstrip("\n").split(" ", 4)
            if f[0] == "function":
                names[int(f[1])] = f[4]
        return names
    out = subprocess.run([os.environ.get("LLVM_XRAY", "llvm-xray"), "extract",
                          "--symbolize", source],
                         check=True, capture_output=True, text=True).stdout
    return {int(m.group(1)): m.group(2).strip().strip("'")
            for m in re.finditer(r"id: (\d+),.*?function-name: ([^,}]+)", out)}


def basic_records(path):
    """(thread, kind, fid, tsc, unwound) of each function record."""
    data = open(path, "rb").read()[32:]
    kinds = {0: ENTER, 3: ENTER, 1: EXIT, 2: TAIL}
    for off in range(0, len(data) - 31, 32):
        rtype, kind, fid, tsc, tid = struct.unpack_from("<HxBiQI", data, off)
        if rtype != 0:
            continue  # an argument's payload
        flags = data[off + 24:off + 32]
        if flags[1:] != bytes(7) or flags[0] not in (0, 1):
            sys.exit("record %d: bytes 24..31 %s" % (off // 32, flags.hex()))
        if flags[0] and kinds[kind] == ENTER:
            sys.exit("record %d: an entry flagged as unwound" % (off // 32))
        yield tid, kinds[kind], fid, tsc, bool(flags[0])


FDR_LINE = re.compile(r"func-id: (-?\d+),.*thread: (\d+),.*kind: ([a-z-]+), "
                      r"tsc: (\d+), data: (.*) }$")


def fdr_records(path):
    """The same, from llvm-xray convert's YAML; "xray-unwound N" marks the
    next N exits of its thread."""
    out = subprocess.run([os.environ.get("LLVM_XRAY", "llvm-xray"), "convert",
                          "-f", "yaml", path],
                         check=True, capture_output=True, text=True).stdout
    marked = collections.Counter()
    for line in out.splitlines():
        m = FDR_LINE.search(line)
        if m is None:
            continue
        fid, tid, kind, tsc, data = m.groups()
        tid, tsc = int(tid), int(tsc)
        if kind == "custom-event":
            u = re.fullmatch(r"'?xray-unwound (\d+)'?", data.strip())
            if u:
                if marked[tid]:
                    sys.exit("thread %d: xray-unwound before %d marked exits"
                             % (tid, marked[tid]))
                marked[tid] = int(u.group(1))
            continue
        if kind.startswith("function-enter"):
            yield tid, ENTER, int(fid), tsc, False
        elif kind in ("function-exit", "function-tail-exit"):
            unwound = marked[tid] > 0
            marked[tid] -= unwound
            yield tid, TAIL if kind == "function-tail-exit" else EXIT, \
                int(fid), tsc, unwound
        else:
            sys.exit("unexpected record kind %s" % kind)
    left = {t: n for t, n in marked.items() if n}
    if left:
        sys.exit("xray-unwound counts more exits than follow: %s" % left)


def replay(records, names):
    counts = collections.defaultdict(collections.Counter)
    stacks = collections.defaultdict(list)
    waiting = {}  # thread -> tsc its unwound exits need of the next record
    for n, (tid, kind, fid, tsc, unwound) in enumerate(records):
        name = names.get(fid, "id%d" % fid)
        if tid in waiting and not unwound:
            # The event that found them is the next record, unless it was an
            # exit the runtime dropped (its call began before recording).
            if tsc != waiting[tid] and not (DROPPED_EXITS and tsc > waiting[tid]):
                sys.exit("record %d (%s %s): unwound exits at %d before it, "
                         "at %d" % (n, kind, name, waiting[tid], tsc))
            del waiting[tid]
        if kind == ENTER:
            stacks[tid].append(fid)
            counts[name]["calls"] += 1
            continue
        stack = stacks[tid]
        if not stack or stack[-1] != fid:
            sys.exit("record %d: %s of %s, the top of thread %d's stack is %s"
                     % (n, kind, name, tid,
                        names.get(stack[-1], stack[-1]) if stack else "empty"))
        stack.pop()
        if unwound:
            if waiting.get(tid, tsc) != tsc:
                sys.exit("record %d: unwound exits at two times" % n)
            waiting[tid] = tsc
        counts[name]["unwound" if unwound else kind] += 1
    if waiting:
        sys.exit("unwound exits at the end of thread(s) %s" % sorted(waiting))
    for stack in stacks.values():
        for fid in stack:
            counts[names.get(fid, "id%d" % fid)]["open"] += 1
    for name in sorted(counts):
        c = counts[name]
        print("%s calls=%d exit=%d tail=%d unwound=%d open=%d"
              % (name, c["calls"], c[EXIT], c[TAIL], c["unwound"], c["open"]))


def chrome(path):
    counts = collections.defaultdict(collections.Counter)
    for e in json.load(open(path)):
        if e.get("ph") != "X":
            continue
        c = counts[e["name"]]
        c["calls"] += 1
        cut = e.get("args", {}).get("cut")
        if cut is not None:
            c[cut] += 1
    for name in sorted(counts):
        c = counts[name]
        print("%s calls=%d unwound=%d open=%d"
              % (name, c["calls"], c["unwound"], c["open"]))


def account(path, names):
    lines = open(path).read().splitlines()
    if not lines or not lines[0].startswith("funcid,count,"):
        sys.exit("%s: not llvm-xray account's CSV" % path)
    got = sorted((names.get(int(line.split(",")[0]), line.split(",")[0]),
                  int(line.split(",")[1])) for line in lines[1:])
    for name, count in got:
        print(name, count)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "chrome":
        chrome(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "account":
        account(sys.argv[2], names_of(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] in ("basic", "fdr"):
        read = basic_records if sys.argv[1] == "basic" else fdr_records
        replay(read(sys.argv[2]), names_of(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
