#!/usr/bin/env python3
"""x86-64 in one corner: no file of lib/ outside lib/arch/ holds inline
assembly, a cpuid, an x86 instruction mnemonic or an x86 register name in its
code (comments are not code), nor an identifier named after one
(xr_cpu_by_rdtscp, XR_CPU_ID_RDPID, save_ymm: core names what it needs by
meaning), nor a string literal naming an instruction (a debug message that
names one gets the name from the port: struct xr_arch_clock_caps). "TSC" is
x86's name for the tick counter: core and the modes without a trace format
say "ticks"; the XRay formats' own fields keep their name (FDR's TSCWrap,
the file header's constant_tsc / nonstop_tsc bits, a record's tsc), but core's
clock (xr_clock.<field>) is named by meaning there too. Assembly files belong
to lib/arch/ as a whole.

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

# Identifiers are split at underscores and lower-to-upper case changes; a
# part that is an x86 mnemonic or register (the patterns above), or one of
# these x86 names, is a finding.
X86_PARTS = re.compile(
    r"(?:x86|amd64|i386|cpuid|[xyz]mm|avx\w*|sse\d*|tscaux)\Z|"
    + "|".join(rf"(?:{p})\Z" for what, p in PATTERNS
               if what in ("x86 mnemonic", "x86 register")).replace(r"\b", ""))
IDENT = re.compile(r"\b[A-Za-z_]\w*")
# "tsc" in an identifier: allowed where an XRay trace format names a field
# so (lib/basic, lib/fdr, lib/export), and for the file header's two bits
# anywhere; never in core's clock fields, which those modes read.
FORMAT_DIRS = ("basic/", "fdr/", "export/")
HEADER_BITS = {"constant_tsc", "nonstop_tsc"}
CLOCK_FIELD = re.compile(r"\bxr_clock\s*(?:\.|->)\s*(\w+)")


def parts(ident):
    return [p.lower() for p in re.split(r"_+|(?<=[a-z0-9])(?=[A-Z])", ident) if p]


def named_after_x86(name, line):
    """The first identifier of `line` (code only) named after x86, or None."""
    fmt = name.replace(os.sep, "/").startswith(FORMAT_DIRS)
    clock_fields = set(CLOCK_FIELD.findall(line))
    for m in IDENT.finditer(line):
        ident = m.group(0)
        for p in parts(ident):
            if X86_PARTS.match(p):
                return ident
            if re.fullmatch(r"tsc\d*", p) and ident not in HEADER_BITS and \
                    (not fmt or ident in clock_fields):
                return ident
    return None
# An asm label (`T x __asm__("symbol");`) names a symbol; it holds no CPU code.
# It follows a declarator; an asm statement follows ; { } or a line start.
ASM_LABEL = re.compile(r'([\w\)\]][ \t]*)\b(?:__asm__|__asm|asm)\s*\(\s*"[^"\n]*"\s*\)\s*(?=[;=,])')


def code_only(text, strings=False):
    """The text with comments and string/char literals blanked (newlines
    kept, so line numbers stay right); with strings=True, everything but the
    literals' contents blanked instead."""
    out, i, n = [], 0, len(text)
    code = (lambda t: re.sub(r"[^\n]", " ", t)) if strings else (lambda t: t)
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
            inside = text[i + 1:j - 1] if strings else " " * max(0, j - i - 2)
            out.append(c + inside + c)
            i = j
        else:
            out.append(code(c))
            i += 1
    return "".join(out)


STRING_RULES = [(what, rx) for what, rx in REGEX if what in ("cpuid", "x86 mnemonic")]


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
        ident = named_after_x86(name, line)
        if ident:
            found.append((name, lineno, f"identifier named after x86: {ident}"))
    for lineno, line in enumerate(code_only(text, strings=True).split("\n"), 1):
        for what, rx in STRING_RULES:
            m = rx.search(line)
            if m:
                found.append((name, lineno, f"{what} in a string: {m.group(0)}"))
    return found


def self_test():
    clean = ('/* one rdtsc, %fs: and __asm__ in a comment */\n'
             'xr_report(XR_DEBUG, "cpu id via %s", caps.cpu_insn_name);\n'
             'uint64_t t = xr_arch_ticks(); struct timespec pause;\n'
             "char c = '\"'; int have_cpu_insn = 0; // eax\n"
             'extern void *volatile p __asm__("_ZN6__xray1pE");\n'
             'bool b = xr_clock.constant_tsc || xr_clock.nonstop_tsc;\n'
             'int records_sorted, rdonly = O_RDONLY, sysfs_khz;\n')
    assert findings("core/ok.c", clean) == [], findings("core/ok.c", clean)
    fmt = ('uint64_t tsc = xr_now(); t->last_tsc = tsc;\n'
           'p = xr_fdr_tsc_wrap(p, tsc); if (x == XR_FDR_TSC_WRAP) {}\n')
    assert findings("fdr/ok.c", fmt) == [], findings("fdr/ok.c", fmt)
    named = {  # (file under lib/, snippet): the identifier reported
        ("core/c.h", "return xr_cpu_by_rdtscp();"): "xr_cpu_by_rdtscp",
        ("fdr/c.c", "if (m == XR_CPU_ID_RDPID) {}"): "XR_CPU_ID_RDPID",
        ("core/c.c", "int have_rdpid = 0;"): "have_rdpid",
        ("basic/c.c", "save_ymm(s);"): "save_ymm",
        ("core/c.c", "static void readTsc(void);"): "readTsc",
        ("core/c.h", "bool using_tsc;"): "using_tsc",
        ("profiling/c.c", "if (!xr_clock.using_tsc) {}"): "using_tsc",
        ("fdr/c.c", "bool fast = xr_clock.using_tsc;"): "using_tsc",
        ("core/c.c", "uint64_t tsc0 = 0;"): "tsc0",
    }
    for (name, snippet), ident in named.items():
        got = [f for f in findings(name, snippet)
               if f[2].startswith("identifier named after x86")]
        assert got and got[0][2].endswith(": " + ident), (name, snippet, got)
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
        'xr_report(XR_DEBUG, "cpu id via rdpid");': "x86 mnemonic in a string",
        'const char *s = "from cpuid";': "cpuid in a string",
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
        fix = ("name it by what it means" if what.startswith("identifier")
               else "let the port name it" if " in a string" in what
               else "move it behind lib/arch/arch.h")
        print(f"lib/{name}:{lineno}: {what} outside lib/arch/ ({fix})")
    return 1 if all_found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
