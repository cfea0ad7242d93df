#!/usr/bin/env python3
"""Dependencies run one way: modes (basic, fdr, profiling, export, dso,
control) -> core -> arch. Checks every #include "..." of lib/: core includes
no mode header; arch includes only arch/ and core/base/common.h's compiler helpers
(plus the documented exception: a port's sled encoder reads core's decoded
sled through core/patch/patching.h); a mode includes no arch/ header and names no
xr_arch_* / XR_ARCH_* symbol in its code: it reaches the port only through
core's wrappers (core/clock/clock.h, core/thread/thread.h), which are always inline and
cost nothing. Public headers (xray/...) are open to everyone.
The includes and names only: the references between files (calls, data,
types, macros), the finer layers (control, modes, export), mode -> mode and
core's rooms are deps.py's.

usage: layers.py LIB_DIR      exit 0 clean, 1 with one line per finding
       layers.py --self-test  checks the checker on known snippets"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arch_corner import code_only  # noqa: E402  (comments and strings out)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ARCH_MAY_USE = {"core/base/common.h"}
ARCH_EXCEPTIONS = {("patch_", "core/patch/patching.h")}  # (file name prefix, header)
ARCH_NAME = re.compile(r"\b(?:xr_arch_|XR_ARCH_)\w*")


def layer(rel):
    top = rel.split("/", 1)[0]
    return top if top in ("arch", "core") else "mode"


def findings(rel, text, exists):
    """Findings for lib/`rel` holding `text`; exists(path under lib/) says
    whether a header is there (an include is looked up beside the file
    first)."""
    bad = []
    here = layer(rel)
    f = os.path.basename(rel)
    for inc in INCLUDE.findall(text):
        if inc.startswith("xray/"):
            continue
        # "x.h" beside the file, else relative to lib/
        local = os.path.join(os.path.dirname(rel), inc).replace(os.sep, "/")
        target = local if exists(local) else inc
        there = layer(target)
        if here == "core" and there == "mode":
            bad.append(f"lib/{rel}: core includes the mode header {target}")
        if here == "mode" and there == "arch":
            bad.append(f"lib/{rel}: a mode includes the port's {target} (use "
                       f"core's wrappers: core/clock/clock.h, core/thread/thread.h)")
        if here == "arch" and there != "arch" and target not in ARCH_MAY_USE \
                and not any(f.startswith(p) and target == h
                            for p, h in ARCH_EXCEPTIONS):
            bad.append(f"lib/{rel}: arch includes {target} (arch depends on "
                       f"nothing above it)")
    if here == "mode":
        for lineno, line in enumerate(code_only(text).split("\n"), 1):
            m = ARCH_NAME.search(line)
            if m:
                bad.append(f"lib/{rel}:{lineno}: a mode names the port's "
                           f"{m.group(0)} (use core's wrappers: core/clock/clock.h, "
                           f"core/thread/thread.h)")
    return bad


def self_test():
    have = {"arch/arch.h", "core/clock/clock.h", "fdr/buffer_queue.h"}.__contains__
    ok = {
        "fdr/a.c": '#include "core/clock/clock.h"\n/* xr_arch_ticks, via clock.h */\n'
                   'uint64_t t = xr_read_ticks(); const char *s = "xr_arch_x";\n',
        "core/clock/clock.h": '#include "arch/arch.h"\nreturn xr_arch_ticks();\n',
        "arch/x86_64/c.c": '#include "arch/arch.h"\n#include "core/base/common.h"\n',
    }
    for rel, text in ok.items():
        assert findings(rel, text, have) == [], (rel, findings(rel, text, have))
    bad = {
        ("fdr/buffer_queue.h", '#include "arch/arch.h"\n'): "includes the port's arch/arch.h",
        ("basic/b.c", '#include "arch/x86_64/arch_x86_64.h"\n'): "includes the port's",
        ("profiling/p.c", "uint64_t t = xr_arch_ticks();\n"): "names the port's xr_arch_ticks",
        ("fdr/f.c", "bool b = xr_arch_test_and_set_top_bit(&w);\n"): "xr_arch_test_and_set",
        ("control/c.c", "char b[XR_ARCH_MAX_SLED_BYTES];\n"): "XR_ARCH_MAX_SLED_BYTES",
        ("core/c.c", '#include "fdr/buffer_queue.h"\n'): "core includes the mode header",
        ("arch/x86_64/c.c", '#include "core/clock/clock.h"\n'): "arch includes core/clock/clock.h",
    }
    for (rel, text), want in bad.items():
        got = findings(rel, text, have)
        assert len(got) == 1 and want in got[0], (rel, text, got)
    print("self-test ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
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
            bad += findings(rel, text,
                            lambda p: os.path.exists(os.path.join(lib, p)))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
