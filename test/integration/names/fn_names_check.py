"""Every id xrayctl's names module gives a binary against llvm-xray's view.

usage: fn_names_check.py DRIVER IDS.txt EXTRACT.yaml [--runtime NAMES.txt]

IDS.txt is `DRIVER ids BINARY` ("id<TAB>0x<address><TAB>name", "-": no
name); EXTRACT.yaml is `llvm-xray extract --symbolize BINARY`. Checks that
both know the same ids, each at the same function address, and the same
name: equal, or equal once both are in the canonical spelling (`DRIVER
canon`, lib/core/match/spelling.c), since the module writes the system
__cxa_demangle's spelling and llvm-xray LLVM's; a function llvm-xray names
'@(address)' has no name in the module either. With --runtime, the names
must also equal, byte for byte, those the runtime itself gives in the
program (its `names` mode: "id<TAB>name"), as both come from the same
__cxa_demangle. Prints a summary; exits 1 on the first difference.
"""
import os
import re
import subprocess
import sys


def extract(path):
    ids = {}
    line_re = re.compile(r"id: *(\d+), *address: *0x([0-9A-Fa-f]+), *function: *0x([0-9A-Fa-f]+)"
                         r".*function-name: *('(?:[^']|'')*'|[^,}]+)")
    for line in open(path):
        m = line_re.search(line)
        if not m:
            continue
        name = m.group(4).strip()
        if name.startswith("'"):
            name = name[1:-1].replace("''", "'")
        fid, function = int(m.group(1)), int(m.group(3), 16)
        if fid in ids and ids[fid][0] != function:
            sys.exit("llvm-xray gives id %d two functions" % fid)
        ids[fid] = (function, name)
    return ids


def ours(path):
    ids = {}
    for line in open(path):
        fid, address, name = line.rstrip("\n").split("\t", 2)
        ids[int(fid)] = (int(address, 16), None if name == "-" else name)
    return ids


def canonical(driver, names):
    text = "".join(n + "\n" for n in names)
    # in a cross build the driver runs under the emulator (a command and its arguments)
    emulator = os.environ.get("XRAY_TEST_EMULATOR", "").split()
    out = subprocess.run(emulator + [driver, "canon"], input=text, capture_output=True, text=True,
                         check=True).stdout
    return out.split("\n")[:len(names)]


def main():
    driver, mine, theirs = sys.argv[1], ours(sys.argv[2]), extract(sys.argv[3])
    if not mine:
        sys.exit("the module gives no id")
    if sorted(mine) != sorted(theirs):
        sys.exit("ids differ: module %s, llvm-xray %s" % (sorted(mine), sorted(theirs)))
    differing = []
    for fid in sorted(mine):
        (a, name), (b, llvm_name) = mine[fid], theirs[fid]
        if a != b:
            sys.exit("id %d: module at 0x%x, llvm-xray at 0x%x" % (fid, a, b))
        if name is None:
            if not llvm_name.startswith("@("):
                sys.exit("id %d: the module has no name, llvm-xray has %r" % (fid, llvm_name))
        elif llvm_name.startswith("@("):
            sys.exit("id %d: llvm-xray has no name, the module has %r" % (fid, name))
        elif name != llvm_name:
            differing.append((fid, name, llvm_name))
    if differing:
        a = canonical(driver, [d[1] for d in differing])
        b = canonical(driver, [d[2] for d in differing])
        for (fid, name, llvm_name), x, y in zip(differing, a, b):
            if x != y:
                sys.exit("id %d: module %r, llvm-xray %r (canonical: %r, %r)"
                         % (fid, name, llvm_name, x, y))
    if len(sys.argv) > 5 and sys.argv[4] == "--runtime":
        runtime = {}
        for line in open(sys.argv[5]):
            fid, name = line.rstrip("\n").split("\t", 1)
            runtime[int(fid)] = name
        if sorted(runtime) != sorted(mine):
            sys.exit("ids differ: module %s, runtime %s" % (sorted(mine), sorted(runtime)))
        for fid, name in runtime.items():
            if mine[fid][1] != name:
                sys.exit("id %d: module %r, runtime %r" % (fid, mine[fid][1], name))
    named = sum(1 for v in mine.values() if v[1] is not None)
    print("%d ids, %d named, %d spelled differently by llvm-xray (equal in the canonical "
          "spelling)" % (len(mine), named, len(differing)))


if __name__ == "__main__":
    main()
