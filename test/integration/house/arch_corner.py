#!/usr/bin/env python3
"""x86-64 in one corner: no file of lib/ outside lib/arch/ holds inline
assembly, a cpuid, an x86 instruction mnemonic or an x86 register name in its
code (comments and string literals are not code: a debug message may name
"rdpid"). Assembly files belong to lib/arch/ as a whole.

usage: arch_corner.py LIB_DIR     exit 0 clean, 1 with one line per finding
       arch_corner.py --self-test checks the checker on known snippets"""
import os
import re
import sys

PATTERNS = [
    ("inline assembly", r"\b(?:__asm__|__asm|asm)\b"),
    ("x86 builtin", r"\b__builtin_ia32_\w+"),
    ("cpuid", r"\bcpuid\b|<cpuid\.h>|\b__get_cpuid\w*|\b__cpuid\w*"),
    ("x86 target macro", r"\b(?:__x86_64__|__x86_64|__amd64__|__i386__)\b"),
    ("x86 mnemonic",
     r"\b(?:rdtscp?|rdpid|xgetbv|xsave\w*|xrstor\w*|fxsave\w*|fxrstor\w*|"
     r"lahf|sahf|pushfq?|popfq?|btsq?|[lms]fence|divq|vzeroupper)\b"),
    ("x86 register",
     r"\b(?:[re](?:ax|bx|cx|dx|si|di|bp|sp)|rip|rflags|eflags|"
     r"r(?:8|9|1[0-5])[dwb]?|[xyz]mm(?:[0-9]|[12][0-9]|3[01])|xcr0|"
     r"[fg]s_base)\b"),
]
REGEX = [(what, re.compile(p)) for what, p in PATTERNS]
# An asm label (`T x __asm__("symbol");`) names a symbol; it holds no CPU code.
# It follows a declarator; an asm statement follows ; { } or a line start.
ASM_LABEL = re.compile(r'([\w\)\]][ \t]*)\b(?:__asm__|__asm|asm)\s*\(\s*"[^"\n]*"\s*\)\s*(?=[;=,])')


def code_only(text):
    """The text with comments and string/char literals blanked (newlines
    kept, so line numbers stay right)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def findings(name, text):
    found = []
    if name.endswith((".S", ".s", ".asm")):
        return [(name, 1, "assembly file")]
    code = ASM_LABEL.sub(r"\1", code_only(text))
    for lineno, line in enumerate(code.split("\n"), 1):
        for what, rx in REGEX:
            m = rx.search(line)
            if m:
                found.append((name, lineno, f"{what}: {m.group(0)}"))
    return found


def self_test():
    clean = ('/* one rdtsc, %fs: and __asm__ in a comment */\n'
             'xr_report(XR_DEBUG, "cpu id via rdpid");\n'
             'uint64_t t = xr_arch_ticks(); struct timespec pause;\n'
             "char c = '\"'; int have_rdpid = 0; // eax\n"
             'extern void *volatile p __asm__("_ZN6__xray1pE");\n')
    assert findings("ok.c", clean) == [], findings("ok.c", clean)
    dirty = {
        'x(); __asm__ volatile("pause");': "inline assembly",
        'x(); asm("pause");': "inline assembly",
        '  __asm__("pause");': "inline assembly",
        "unsigned a; __cpuid_count(7, 0, a, a, a, a);": "cpuid",
        "#include <cpuid.h>": "cpuid",
        "__builtin_ia32_pause();": "x86 builtin",
        "#if defined(__x86_64__)": "x86 target macro",
        "uint64_t rax = 0;": "x86 register",
        "int xmm0;": "x86 register",
        "#define lahf 1": "x86 mnemonic",
    }
    for snippet, what in dirty.items():
        got = findings("bad.c", snippet)
        assert got and got[0][2].startswith(what), (snippet, got)
    assert findings("t.S", "") != []
    print("self-test ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib = argv[1]
    all_found = []
    for root, dirs, files in os.walk(lib):
        rel = os.path.relpath(root, lib)
        if rel == "arch" or rel.startswith("arch" + os.sep):
            continue
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".S", ".s", ".asm", ".inc")):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                all_found += findings(os.path.relpath(path, lib), fh.read())
    for name, lineno, what in all_found:
        print(f"lib/{name}:{lineno}: {what} outside lib/arch/ "
              f"(move it behind lib/arch/arch.h)")
    return 1 if all_found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
