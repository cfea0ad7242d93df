#!/usr/bin/env python3
"""clang-tidy over every C file of lib/ and tools/, with the checks the
top-level .clang-tidy states (and says why): no finding, or the test fails
and prints each one with clang-tidy's explanation.

The files are those of the build's compilation database
(CMAKE_EXPORT_COMPILE_COMMANDS=ON) under SOURCE_DIR/lib and
SOURCE_DIR/tools, found there and not listed here, so files that move
between rooms need no change here. The ports of lib/arch/ that this build
does not compile (AArch64 on an x86-64 host, and the other way round) are
analysed too, with the command of a file of the built port and
--target=<port>-linux-gnu, when that target's C library headers are
installed (Debian: libc6-dev-arm64-cross); without them they are named as
not analysed, and --all (or XRAY_STATIC_REQUIRED=1) makes that a failure.

usage: clang_tidy.py [--all] [-j N] CLANG_TIDY BUILD_DIR SOURCE_DIR
       clang_tidy.py --self-test CLANG_TIDY
exit 0 clean, 1 with a finding (or a file not analysed under --all),
77 when CLANG_TIDY is not there (XRAY_STATIC_REQUIRED=1: 1)."""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from static_tool import required, skip_or_fail, take_jobs

ROOMS = ("lib", "tools")
# "path:line:col: warning: text [check]"; errors have no check when they
# are the compiler's (clang-diagnostic-error is added by clang-tidy).
FINDING = re.compile(r"^(\S.*?):(\d+):(\d+): (warning|error): (.*?)(?: \[([\w.,-]+)\])?$")
SYSROOTS = {"aarch64": "/usr/aarch64-linux-gnu/include",
            "x86_64": "/usr/x86_64-linux-gnu/include"}


def entries(build_dir, source_dir):
    """The database's C files under the rooms: [(file, directory, args)],
    one per file (a file built into two targets is analysed once)."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        db = json.load(f)
    root = os.path.realpath(source_dir)
    seen, out = set(), []
    for e in db:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(path, root)
        if not rel.startswith(tuple(r + os.sep for r in ROOMS)) or not path.endswith(".c"):
            continue
        if path in seen:
            continue
        seen.add(path)
        args = e.get("arguments") or shlex.split(e["command"])
        out.append((path, e["directory"], args))
    return out


def other_ports(built, source_dir):
    """[(file, directory, args)] for the C files of lib/arch/<port>/ that the
    database lacks, from a built file of lib/arch/ with --target, and the
    files that cannot be analysed here, [(file, why)]."""
    arch = os.path.join(os.path.realpath(source_dir), "lib", "arch")
    model = next((e for e in built if e[0].startswith(arch + os.sep)
                  and os.path.dirname(os.path.dirname(e[0])) == arch), None)
    have = {e[0] for e in built}
    out, missing = [], []
    if model is None or not os.path.isdir(arch):
        return out, missing
    for port in sorted(os.listdir(arch)):
        d = os.path.join(arch, port)
        if not os.path.isdir(d):
            continue
        files = sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".c"))
        files = [f for f in files if f not in have]
        if not files:
            continue
        headers = SYSROOTS.get(port, "/usr/%s-linux-gnu/include" % port)
        if not os.path.isfile(os.path.join(headers, "stdio.h")):
            missing += [(f, "no C library headers for %s in %s" % (port, headers))
                        for f in files]
            continue
        # the model's command less its input and output, for another target
        base, it = [], iter(model[2])
        for a in it:
            if a == "-o":
                next(it, None)
            elif a != "-c" and os.path.realpath(os.path.join(model[1], a)) != model[0]:
                base.append(a)
        for f in files:
            # (clang finds /usr/<triple> beside its own prefix, which is
            # not clang-tidy's: the headers are named)
            out.append((f, model[1], base[:1] + ["--target=%s-linux-gnu" % port,
                                                 "-isystem", headers]
                        + base[1:] + ["-c", f]))
    return out, missing


def run_one(tidy, entry, db_dir, header_filter):
    path = entry[0]
    p = subprocess.run([tidy, "--quiet", "-p", db_dir, "--header-filter=" + header_filter, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return path, p.returncode, p.stdout


def analyse(tidy, todo, jobs, root):
    """Runs clang-tidy on each entry through one compilation database of
    exactly these commands; returns (findings, report text). Headers are
    checked under root's rooms only: .clang-tidy's HeaderFilterRegex,
    anchored at root (a checkout under some /lib/ would match it all)."""
    header_filter = "^" + re.escape(os.path.realpath(root)) + "/(" + "|".join(ROOMS) + ")/"
    with tempfile.TemporaryDirectory() as db_dir:
        with open(os.path.join(db_dir, "compile_commands.json"), "w") as f:
            json.dump([{"directory": d, "file": p, "arguments": a} for p, d, a in todo], f)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda e: run_one(tidy, e, db_dir, header_filter), todo))
    findings, report = [], []
    for path, rc, out in sorted(results):
        mine = []
        for line in out.splitlines():
            m = FINDING.match(line)
            if m:
                mine.append((m.group(1), int(m.group(2)), m.group(4),
                             m.group(6) or "clang-diagnostic-error", m.group(5)))
        if rc != 0 and not mine:  # a crash or an unusable command
            mine.append((path, 0, "error", "clang-tidy", "exit status %d" % rc))
        if mine:
            findings += mine
            report.append(out.rstrip())
    # A header's finding is printed once per file that includes it.
    return sorted(set(findings)), "\n".join(report)


def check(tidy, build_dir, source_dir, jobs, require_all):
    built = entries(build_dir, source_dir)
    if not built:
        print("no file of %s in %s/compile_commands.json" % (" or ".join(ROOMS), build_dir))
        return 1
    extra, missing = other_ports(built, source_dir)
    todo = built + extra
    findings, report = analyse(tidy, todo, jobs, source_dir)
    if report:
        print(report)
    root = os.path.realpath(source_dir)
    by_check = {}
    for f in findings:
        by_check[f[3]] = by_check.get(f[3], 0) + 1
        print("%s:%d: %s: %s [%s]" % (os.path.relpath(f[0], root), f[1], f[2], f[4], f[3]))
    for f, why in missing:
        print("not analysed: %s (%s)" % (os.path.relpath(f, root), why))
    print("clang-tidy: %d file(s) (%d of other ports), %d finding(s)%s" % (
        len(todo), len(extra), len(findings),
        "".join(", %s %d" % kv for kv in sorted(by_check.items()))))
    return 1 if findings or (missing and require_all) else 0


def self_test(tidy):
    """A file with a planted NULL dereference, a reserved identifier (and
    another in a header it includes), a silenced finding and a compile
    error: all but the silenced one are found; a clean file passes."""
    here = os.path.dirname(os.path.realpath(__file__))
    config = os.path.join(here, "..", "..", "..", ".clang-tidy")
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "lib", "core"))
        shutil.copy(config, os.path.join(root, ".clang-tidy"))
        files = {
            "lib/core/bad.h": "extern int __in_header;\n",
            "lib/core/bad.c":
                "#include <stddef.h>\n#include \"bad.h\"\n"
                "int __mine;\n"
                "int deref(int *p) { if (p == NULL) return *p; return 0; }\n"
                "int quiet(int *p) { if (p == NULL) return *p; /* NOLINT(clang-analyzer-core.NullDereference): planted */ return 0; }\n",
            "lib/core/broken.c": "int f(void) { return undeclared; }\n",
            "lib/core/good.c": "int twice(int x) { return 2 * x; }\n",
        }
        for name, text in files.items():
            with open(os.path.join(root, name), "w") as out:
                out.write(text)
        build = os.path.join(root, "build")
        os.makedirs(build)

        def db(names):
            with open(os.path.join(build, "compile_commands.json"), "w") as out:
                json.dump([{"directory": build, "file": os.path.join(root, n),
                            "arguments": ["cc", "-std=gnu11", "-c", os.path.join(root, n)]}
                           for n in names], out)
        db(["lib/core/bad.c", "lib/core/broken.c"])
        found, _ = analyse(tidy, entries(build, root), 2, root)
        got = sorted((os.path.relpath(f[0], root), f[1], f[3]) for f in found)
        want = [("lib/core/bad.c", 3, "bugprone-reserved-identifier"),
                ("lib/core/bad.c", 4, "clang-analyzer-core.NullDereference"),
                ("lib/core/bad.h", 1, "bugprone-reserved-identifier"),
                ("lib/core/broken.c", 1, "clang-diagnostic-error")]
        if got != want:
            print("self-test: got %s" % got)
            return 1
        db(["lib/core/good.c"])
        found, _ = analyse(tidy, entries(build, root), 1, root)
        if found:
            print("self-test: a clean file has findings: %s" % found)
            return 1
    print("self-test: ok")
    return 0


def main(argv):
    args = argv[1:]
    require_all = "--all" in args or required()
    args = [a for a in args if a != "--all"]
    jobs, args = take_jobs(args)
    if len(args) == 2 and args[0] == "--self-test":
        tidy = shutil.which(args[1])
        if tidy is None:
            return skip_or_fail("%s not found: clang-tidy not run" % args[1])
        return self_test(tidy)
    if len(args) != 3:
        print(__doc__)
        return 2
    tidy = shutil.which(args[0])
    if tidy is None:
        return skip_or_fail("%s not found: clang-tidy not run" % args[0])
    return check(tidy, args[1], args[2], jobs, require_all)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
