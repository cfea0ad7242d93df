#!/usr/bin/env python3
"""FDR's common case saves no register (lib/fdr/fdr_controller_lean.c,
function_event): from the handler's first instruction to its first `ret`
there is no push. A saved register there once doubled the cost of an FDR
event with GCC 12 (docs/performance.md) while callgrind counted 4 more
instructions, so it is checked here, in GCC's optimised, unsanitised build
(clang 13-19 keep three registers there, pushed and popped, and cost
about 0.6 ns per event more: measured, not checked).

usage: lean_prologue.py OBJDUMP LIBXRAY_A C_FLAGS BUILD_TYPE COMPILER_ID
exit 0 clean, 1 with a finding, 77 when the build is not one to check."""
import subprocess
import sys

HANDLERS = ["xr_fdr_handle_arg0"]


def fast_path(disassembly, symbol):
    """The instructions of `symbol` up to and including its first ret."""
    lines, inside = [], False
    for line in disassembly.splitlines():
        if line.endswith("<%s>:" % symbol):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            lines.append(line)
            if "\tret" in line:
                break
    return lines


def main(argv):
    if len(argv) != 6:
        print(__doc__)
        return 2
    objdump, archive, c_flags, build_type, compiler = argv[1:]
    if ("-fsanitize" in c_flags or build_type not in ("Release", "RelWithDebInfo")
            or compiler != "GNU"):
        print("skipped: only GCC's optimised, unsanitised build is checked")
        return 77
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", archive],
                         capture_output=True, text=True, check=True).stdout
    bad = 0
    for symbol in HANDLERS:
        path = fast_path(out, symbol)
        if not path or "\tret" not in path[-1]:
            print("%s: not found, or no ret" % symbol)
            bad += 1
            continue
        pushes = [l.strip() for l in path if "\tpush" in l]
        if pushes:
            print("%s: the common case saves registers: %s" % (symbol, "; ".join(pushes)))
            bad += 1
        else:
            print("%s: %d instructions to ret, no push" % (symbol, len(path)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
