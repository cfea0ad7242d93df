#!/usr/bin/env python3
"""Every file a comment or a document names exists: a name such as
`fdr_snapshot.c`, `core/objects/objects.h` or `test/integration/lib.sh` in lib/,
include/, docs/, tools/ or README.md must be a file of the
source tree (found as written, beside the file that names it, under lib/,
test/ or include/, or, for a bare name, anywhere), or a file CMake generates
from a template of the same name plus `.in` (configure_file: `xray_version.h`
from `include/xray/xray_version.h.in`). A renamed or removed file
then fails here instead of leaving comments that point nowhere. (The
tests' scripts are not read: they name the programs they write.)

Names of other projects' files (compiler-rt, glibc, LLVM's lit) are listed
in UPSTREAM below; placeholders (`foo.c`, `trampoline_<cpu>.S`) are not
names.

usage: file_names.py SOURCE_DIR | --self-test
exit 0 clean, 1 with a finding."""
import os
import re
import sys
import tempfile

SCANNED = ("lib", "include", "docs", "tools", "README.md")
TEXT = re.compile(r"\.(c|h|S|inc|md|py|sh|txt|cmake|in|map)$")
# A file name: path parts, then a name ending in one of these extensions,
# not inside a longer word, a path, a $variable or a <placeholder>.
NAME = re.compile(r"(?<![\w./$<>*-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*"
                  r"\.(?:c|h|S|inc|py|sh|cmake))(?![\w/<>*-]|\.\w)")
UPSTREAM = {
    "xray_interface_internal.h", "xray_fdr_log_records.h",  # compiler-rt
    "xray_profiling_flags.inc", "xray_flags.inc", "xray_AArch64.cpp",
    "posix/fork.c", "dl-close.c",                            # glibc
    "lit.py", "lit.cfg.py",                                  # LLVM's lit
    "foo.c", "foo.h",                                        # placeholders
}


def tree(root):
    """Every file under root but build trees and hidden directories."""
    files = set()
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs
                   if not x.startswith(".") and not x.startswith("build")]
        for n in names:
            files.add(os.path.relpath(os.path.join(d, n), root))
    return files


def exists(name, where, files, bases):
    if name in UPSTREAM or name.startswith(("compiler-rt/", "...")):
        return True
    if not name.endswith(".in") and exists(name + ".in", where, files, bases):
        return True  # generated from its template
    if name in files:
        return True
    if os.path.normpath(os.path.join(os.path.dirname(where), name)) in files:
        return True
    if any(p + "/" + name in files for p in ("lib", "test", "include")):
        return True
    if "/" not in name:
        return name in bases
    return any(f.endswith("/" + name) for f in files)


def check(root):
    files = tree(root)
    bases = {os.path.basename(f) for f in files}
    findings = []
    for f in sorted(files):
        if not f.startswith(SCANNED) or not TEXT.search(f):
            continue
        if f.startswith(os.path.join("test", "integration", "house", "file_names")):
            continue
        with open(os.path.join(root, f), errors="replace") as text:
            for n, line in enumerate(text, 1):
                for m in NAME.finditer(line):
                    if not exists(m.group(1), f, files, bases):
                        findings.append("%s:%d: names %s, which does not exist"
                                        % (f, n, m.group(1)))
    return findings


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "lib", "core"))
        os.makedirs(os.path.join(root, "docs"))
        for name, text in {
                "lib/core/here.c": "/* see there.h, core/here.c, gone.c */\n"
                                   "#include <sys/mman.h>\n",
                "lib/core/there.h": "/* trampoline_<cpu>.S, $ROOT/x/y.c */\n",
                "lib/core/made.h.in": "/* from CMake: made.h, core/made.h */\n",
                "docs/a.md": "`lib/core/gone.h` and `here.c` and foo.c\n"}.items():
            with open(os.path.join(root, name), "w") as out:
                out.write(text)
        got = check(root)
        want = ["docs/a.md:1: names lib/core/gone.h, which does not exist",
                "lib/core/here.c:1: names gone.c, which does not exist"]
        if got != want:
            print("self-test: got %s" % got)
            return 1
    print("self-test: ok")
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    if argv[1] == "--self-test":
        return self_test()
    findings = check(argv[1])
    for f in findings:
        print(f)
    print("%d file name(s) that point nowhere" % len(findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
