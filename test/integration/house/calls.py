#!/usr/bin/env python3
"""Calls between the files of lib/ run one way, read from the built archives
(what the linker sees, not the includes): for each object file of libxray.a,
its undefined symbols that another object file of the archive defines are
its calls (or data uses) into that file. Checks:
  - no cycle between files (every cycle is printed with the symbols of each
    edge, minus the edges of ALLOWED below);
  - layers: control -> modes (basic, fdr, profiling) -> export -> core ->
    arch, never upward, and no mode calls another mode;
  - libxray-dso.a (lib/dso and its trampolines) reaches the runtime only
    through core's registration ABI (core/dispatch/dso_abi.h).

usage: calls.py NM LIB_DIR libxray.a libxray-dso.a
       calls.py --self-test NM CC   (builds a small archive with each fault)
exit 0 clean, 1 with one line per finding"""
import collections
import os
import subprocess
import sys

RANK = {"control": 4, "basic": 3, "fdr": 3, "profiling": 3, "export": 2, "core": 1, "arch": 0}
MODES = {"basic", "fdr", "profiling"}

# Upward uses that are the design: a port's trampolines read core's handler
# slots (core/dispatch/hot_tables.c: the one way from a patched sled into the runtime).
UPWARD_OK = {("arch/%s/trampoline_%s.S" % (port, port), slot)
             for port in ("x86_64", "aarch64")
             for slot in ("xr_handler_full", "xr_handler_lean")}

# The calls a shared object's libxray-dso.a may make into the executable's
# runtime: the registration ABI (core/dispatch/dso_abi.h) and the trampolines it
# falls back to when it cannot patch its own.
DSO_MAY_CALL = {"__xray_register_dso", "__xray_deregister_dso", "__xray_dso_dispatch",
                "__xray_dso_dense_dispatch", "__xray_FunctionEntry", "__xray_FunctionExit",
                "__xray_FunctionTailExit", "__xray_ArgLoggerEntry"}

# File pairs whose calls (either way) are left out of the cycle check: each
# is a cycle another piece of work removes; empty this list as they land.
# Every cycle is still printed, its allowed edges marked *.
ALLOWED = {frozenset(p) for p in [
]}


def source_files(lib):
    """object file name (x.c.o) -> path under lib/ (basenames are unique)."""
    out = {}
    for root, dirs, files in os.walk(lib):
        for f in files:
            if f.endswith((".c", ".S")):
                rel = os.path.relpath(os.path.join(root, f), lib).replace(os.sep, "/")
                if f + ".o" in out:
                    sys.exit(f"calls.py: two sources named {f}: map them by path")
                out[f + ".o"] = rel
    return out


def symbols(nm, archive, names):
    """(defined: symbol -> file, used: file -> set of undefined symbols)"""
    text = subprocess.run([nm, "-A", archive], capture_output=True, text=True,
                          check=True).stdout
    defined, used = {}, collections.defaultdict(set)
    for line in text.splitlines():
        where, _, rest = line.rpartition(":")
        member = where.split(":")[-1]
        fields = rest.split()
        if member not in names:
            sys.exit(f"calls.py: {archive} member {member} has no source under lib/")
        if len(fields) == 2 and fields[0] in ("U", "w", "v"):
            used[names[member]].add(fields[1])
        elif len(fields) == 3 and fields[1].isupper() and fields[1] not in "UNVW":
            defined.setdefault(fields[2], names[member])
    return defined, used


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(nm, lib, archive, dso_archive):
    """The findings (printing every cycle first)."""
    names = source_files(lib)
    defined, used = symbols(nm, archive, names)
    edges = collections.defaultdict(set)  # (from, to) -> symbols
    for src, syms in used.items():
        for s in syms:
            if s in defined and defined[s] != src:
                edges[(src, defined[s])].add(s)
    bad = []

    def layer(rel):
        return rel.split("/", 1)[0]

    for (a, b), syms in sorted(edges.items()):
        la, lb = layer(a), layer(b)
        if la == lb:
            continue
        up = RANK[lb] >= RANK[la]
        if up and la in MODES and lb in MODES:
            bad.append(f"{a} -> {b}: a mode calls another mode ({', '.join(sorted(syms))})")
        elif up and not all((a, s) in UPWARD_OK for s in syms):
            bad.append(f"{a} -> {b}: {la} calls up into {lb} ({', '.join(sorted(syms))})")

    graph = collections.defaultdict(set)
    for (a, b) in edges:
        graph[a].add(b)
        graph[b]
    found = cycles(graph)
    if found:
        print("all cycles between files (allowed edges marked *):")
        for part in found:
            print("  cycle: " + " ".join(part))
            for (a, b), syms in sorted(edges.items()):
                if a in part and b in part:
                    mark = "*" if frozenset((a, b)) in ALLOWED else " "
                    print(f"   {mark} {a} -> {b}: {', '.join(sorted(syms))}")
    rest = collections.defaultdict(set)
    for (a, b) in edges:
        if frozenset((a, b)) not in ALLOWED:
            rest[a].add(b)
            rest[b]
    for part in cycles(rest):
        bad.append("cycle not in the allowlist: " + " ".join(part))
    for a, b in sorted(sorted(p) for p in ALLOWED):
        if os.path.exists(os.path.join(lib, a)) and not any(a in p and b in p for p in found):
            print(f"note: allowlist pair {a} / {b} is in no cycle now: remove it")

    dso_names = source_files(lib)
    _, dso_used = symbols(nm, dso_archive, dso_names)
    for src, syms in sorted(dso_used.items()):
        for s in sorted(syms):
            owner = defined.get(s)
            if owner is not None and s not in DSO_MAY_CALL:
                bad.append(f"{src} -> {owner}: the shared object's part calls {s}, not "
                           f"core's registration ABI")
    return bad


SELF_TEST = {  # file -> (functions it defines, functions it calls)
    "core/a.c": (["xr_a"], ["xr_b"]),
    "core/b.c": (["xr_b"], ["xr_a"]),           # a <-> b: a cycle
    "core/c.c": (["xr_c"], ["xr_m"]),           # core calls up into basic
    "basic/m.c": (["xr_m"], ["xr_n"]),          # basic calls fdr
    "fdr/n.c": (["xr_n"], ["xr_c"]),
    "dso/d.c": (["xr_d"], ["xr_b", "__xray_register_dso"]),
    "core/r.c": (["__xray_register_dso"], []),
}


def self_test(nm, cc):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "lib")
        objs = {"x": [], "dso": []}
        for rel, (defs, calls) in SELF_TEST.items():
            path = os.path.join(lib, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            body = "".join(f"void {c}(void);\n" for c in calls)
            body += "".join(f"void {d}(void) {{ {' '.join(c + '();' for c in calls)} }}\n"
                            for d in defs)
            with open(path, "w") as fh:
                fh.write(body)
            obj = os.path.join(tmp, os.path.basename(rel) + ".o")
            subprocess.run([cc, "-c", path, "-o", obj], check=True)
            objs["dso" if rel.startswith("dso/") else "x"].append(obj)
        archives = []
        for name in ("x", "dso"):
            a = os.path.join(tmp, f"lib{name}.a")
            subprocess.run(["ar", "rcs", a] + objs[name], check=True)
            archives.append(a)
        got = check(nm, lib, *archives)
    want = ["cycle not in the allowlist: core/a.c core/b.c",
            "core/c.c -> basic/m.c: core calls up into basic (xr_m)",
            "basic/m.c -> fdr/n.c: a mode calls another mode (xr_n)",
            "dso/d.c -> core/b.c: the shared object's part calls xr_b, not core's "
            "registration ABI"]
    missing = [w for w in want if w not in got]
    extra = [g for g in got if g not in want and not g.startswith("cycle not")]
    for line in missing:
        print("self-test: not found: " + line)
    for line in extra:
        print("self-test: unexpected: " + line)
    return 1 if missing or extra else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--self-test":
        return self_test(argv[2], argv[3])
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    bad = check(*argv[1:])
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
