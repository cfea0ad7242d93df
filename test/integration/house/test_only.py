#!/usr/bin/env python3
"""No code in the archives only for the tests: every global symbol with the
xr_ prefix that libxray.a or libxray-dso.a defines is used by the runtime or
its tools. A symbol no other object file of the archives needs (nm) must be
used in its own file besides its definition (a static function's caller, a
table's reader), in another file of lib/ (assembly), or in tools/; one that
only tests name belongs in the tests, or the tests should go through the
real entry points (docs/design.md, "Test-only code").

usage: test_only.py NM SOURCE_DIR libxray.a libxray-dso.a
       test_only.py --self-test
exit 0 clean, 1 with one line per finding"""
import collections
import os
import re
import subprocess
import sys
import tempfile

# Symbols only tests use, in files other work is changing now (issue 22);
# empty this list as they land.
ALLOWED = {
    "xr_cpu_id_by",            # core/clock.c: clock_test, controller_test
    "xr_fdr_queue_next_used",  # fdr/buffer_queue.c: queue_test
}

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|^[ \t]*#(?![ \t]*define)[^\n]*$",
                     re.S | re.M)
# nm -A: "archive:member.o:value T name", the value blank when undefined.
NM_LINE = re.compile(r"^.*:(?P<member>[^:/]+\.o):[0-9a-fA-F ]*\s"
                     r"(?P<kind>\w) (?P<sym>\S+)$")


def code_words(path):
    """The identifiers of a source file outside its comments, counted."""
    with open(path, errors="replace") as f:
        text = COMMENT.sub(" ", f.read())
    return collections.Counter(re.findall(r"\b\w+\b", text))


def archive_symbols(nm, archives):
    """(defined: xr_ symbol -> member file name, used: every undefined name)"""
    defined, used = {}, set()
    for a in archives:
        out = subprocess.run([nm, "-A", a], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            m = NM_LINE.match(line)
            if m is None:
                continue
            kind, sym = m.group("kind"), m.group("sym")
            if kind in "Uwv":
                used.add(sym)
            elif kind in "TDBRCVW" and sym.startswith("xr_"):
                defined[sym] = m.group("member")
    return defined, used


def findings(defined, used, sources, words):
    """sources: member name (x.c.o) -> path; words: path -> Counter."""
    out = []
    for sym, member in sorted(defined.items()):
        if sym in used or sym in ALLOWED:
            continue
        own = sources.get(member)
        if own is not None and words[own][sym] >= 2:
            continue
        if any(n[sym] for p, n in words.items() if p != own):
            continue
        out.append("%s (%s): used only by tests" % (sym, own or member))
    return out


def scan(root):
    sources, words = {}, {}
    for top in ("lib", "tools"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if not n.endswith((".c", ".S", ".inc")):
                    continue
                path = os.path.relpath(os.path.join(d, n), root)
                words[path] = code_words(os.path.join(root, path))
                if top == "lib":
                    sources[n + ".o"] = path
    return sources, words


def self_test():
    defined = {"xr_used": "a.c.o", "xr_local": "a.c.o", "xr_asm": "b.c.o",
               "xr_tool": "b.c.o", "xr_tests": "b.c.o"}
    sources = {"a.c.o": "lib/a.c", "b.c.o": "lib/b.c"}
    words = {"lib/a.c": collections.Counter(xr_used=1, xr_local=2),
             "lib/b.c": collections.Counter(xr_asm=1, xr_tool=1, xr_tests=1),
             "lib/t.S": collections.Counter(xr_asm=1),
             "tools/x.c": collections.Counter(xr_tool=1)}
    got = findings(defined, {"xr_used"}, sources, words)
    if got != ["xr_tests (lib/b.c): used only by tests"]:
        print("self-test: got %s" % got)
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".c") as c:
        c.write("/* xr_a */ int xr_b; // xr_c\n#if xr_d\n#define X xr_e\n")
        c.flush()
        counted = code_words(c.name)  # comments and conditions are not uses
    if [w for w in counted if w.startswith("xr_")] != ["xr_b", "xr_e"]:
        print("self-test: code_words counted %s" % counted)
        return 1
    lines = ["/b/lib/libxray.a:a.c.o:0000000000000420 T xr_f",
             "/b/lib/libxray.a:a.c.o:                 U close"]
    parsed = [(m.group("member"), m.group("kind"), m.group("sym"))
              for m in map(NM_LINE.match, lines)]
    if parsed != [("a.c.o", "T", "xr_f"), ("a.c.o", "U", "close")]:
        print("self-test: nm lines read as %s" % parsed)
        return 1
    print("self-test: ok")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 5:
        print(__doc__)
        return 2
    nm, root = argv[1], argv[2]
    defined, used = archive_symbols(nm, argv[3:])
    sources, words = scan(root)
    out = findings(defined, used, sources, words)
    for f in out:
        print(f)
    print("%d symbol(s) in the archives used only by tests" % len(out))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
