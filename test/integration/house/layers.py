#!/usr/bin/env python3
"""Dependencies run one way: modes (basic, fdr, profiling, export, dso) ->
core -> arch. Checks every #include "..." of lib/: core includes no mode
header; arch includes only arch/ and core/common.h's compiler helpers (plus
the documented exception: a port's sled encoder reads core's decoded sled
through core/patching.h). Public headers (xray/...) are open to everyone.
The includes only: the calls between files, the finer layers (control,
modes, export) and mode -> mode are calls.py's, read from the archives.

usage: layers.py LIB_DIR    exit 0 clean, 1 with one line per finding"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ARCH_MAY_USE = {"core/common.h"}
ARCH_EXCEPTIONS = {("patch_", "core/patching.h")}  # (file name prefix, header)


def layer(rel):
    top = rel.split("/", 1)[0]
    return top if top in ("arch", "core") else "mode"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib = argv[1]
    bad = []
    for root, dirs, files in os.walk(lib):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".S")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, lib).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            here = layer(rel)
            for inc in INCLUDE.findall(text):
                if inc.startswith("xray/"):
                    continue
                # "x.h" beside the file, else relative to lib/
                local = os.path.join(os.path.dirname(rel), inc).replace(os.sep, "/")
                target = local if os.path.exists(os.path.join(lib, local)) else inc
                there = layer(target)
                if here == "core" and there == "mode":
                    bad.append(f"lib/{rel}: core includes the mode header {target}")
                if here == "arch" and there != "arch" and target not in ARCH_MAY_USE \
                        and not any(f.startswith(p) and target == h
                                    for p, h in ARCH_EXCEPTIONS):
                    bad.append(f"lib/{rel}: arch includes {target} (arch depends on "
                               f"nothing above it)")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
