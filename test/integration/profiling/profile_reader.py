#!/usr/bin/env python3
"""Reads an xray-profiling block file (compiler-rt's layout, written
by xray_profile_collector.cpp) and prints its call paths with counts, one
block after another:

    block <n>
    main;tree;parse 2

Ids become names through `llvm-xray extract --symbolize BINARY` (-m), else
stay numbers. --merge prints all blocks summed as one. --check-times fails
unless every node's total time is at least the sum of its children's, which
is what inclusive times must satisfy (children not counted twice)."""
import argparse, re, struct, subprocess, sys

def load_names(llvm_xray, binary):
    out = subprocess.run([llvm_xray, "extract", "--symbolize", binary],
                         check=True, capture_output=True, text=True).stdout
    names = {}
    for m in re.finditer(r"id: (\d+),.*?function-name: ([^,}]+)", out):
        names[int(m.group(1))] = m.group(2).strip()
    return names

def parse(data):
    if len(data) < 32:
        sys.exit("short file: %d bytes" % len(data))
    magic, version, _ts, _pid = struct.unpack_from("<QQQQ", data, 0)
    if magic != 0x7872617970726f66 or version != 0x20180424:
        sys.exit("bad header %x %x" % (magic, version))
    off, blocks, number = 32, [], 0
    while off < len(data):
        size, num, tid = struct.unpack_from("<IIQ", data, off)
        if num != number or size < 16 or off + size > len(data):
            sys.exit("bad block at %d: size %d number %d" % (off, size, num))
        end, p, recs = off + size, off + 16, []
        while p < end:
            path = []
            while True:
                (fid,) = struct.unpack_from("<i", data, p)
                p += 4
                if fid == 0:
                    break
                path.append(fid)
            count, time = struct.unpack_from("<QQ", data, p)
            p += 16
            if p > end or not path:
                sys.exit("record crosses block %d" % num)
            recs.append((tuple(reversed(path)), count, time))
        blocks.append((tid, recs))
        off, number = end, number + 1
    return blocks

def check_times(recs):
    total = {path: time for path, _c, time in recs}
    children = {}
    for path, _c, time in recs:
        if len(path) > 1:
            if path[:-1] not in total:
                sys.exit("path %s has no parent record" % (path,))
            children[path[:-1]] = children.get(path[:-1], 0) + time
    for parent, csum in children.items():
        if csum > total[parent]:
            sys.exit("children of %s take %d ticks, more than its %d" %
                     (parent, csum, total[parent]))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("-m", "--binary")
    ap.add_argument("--llvm-xray", default="llvm-xray")
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--check-times", action="store_true")
    ap.add_argument("--ids", action="store_true", help="print ids, not names")
    a = ap.parse_args()
    data = open(a.file, "rb").read() if a.file != "-" else sys.stdin.buffer.read()
    blocks = parse(data)
    names = load_names(a.llvm_xray, a.binary) if a.binary and not a.ids else {}
    def show(path):
        return ";".join(names.get(f, str(f)) for f in path)
    if a.check_times:
        for _tid, recs in blocks:
            check_times(recs)
    if a.merge:
        merged = {}
        for _tid, recs in blocks:
            for path, count, _t in recs:
                merged[path] = merged.get(path, 0) + count
        for path in sorted(merged, key=show):
            print(show(path), merged[path])
        return
    for i, (_tid, recs) in enumerate(blocks):
        print("block", i)
        for path, count, _t in sorted(recs, key=lambda r: show(r[0])):
            print(show(path), count)

main()
