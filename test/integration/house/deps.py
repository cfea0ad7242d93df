#!/usr/bin/env python3
"""Dependencies between the files of lib/ run one way, by any reference: a
call, a data use, a type, an enum constant, a macro, an inline function.

The graph's nodes are units: foo.c with its header foo.h (same folder, same
name); a header, .S or .inc file with no .c of its name is a unit of its
own. (Public headers, include/xray/*.h, are outside lib/: not units.) An
edge A -> B says a file of A uses B, read two ways:
  - from the built archives (nm: what the linker sees): each object file's
    undefined symbols that another object of the archive defines; weak
    definitions (nm V/W: a built-in mode filling core's weak slot) are not
    definitions here, so core's weak references to the modes are no edges;
  - from the sources: a file uses unit U when it names an identifier that
    U's header declares (a struct/union/enum tag with its body, a typedef,
    an enum constant, a macro, an inline function, a prototype, extern or
    header-defined data) or that U's .c defines non-static, and the file
    includes that header directly or through other headers (so a local name
    that happens to match counts for nothing). A function or variable a
    header declares and another file defines belongs to the defining file's
    unit (nm, else the sources): users depend on the definer, and the
    declaring header too (its declaration is a use: "declares"), unless
    the declaration is weak (core's slot, which the modes fill). What a
    port (lib/arch/<cpu>/) defines for a header outside its folder
    (arch/arch.h, core's patching.h for the sled encoder) implements that
    header's interface and belongs to the header; a port never depends on
    another port's definition of the same name. A tag
    named without its body in scope (`struct x *p`, a forward declaration)
    belongs to the one file that gives it a body. A header's own uses
    (macro bodies, inline functions, member types) count for its unit.
    Comments and string literals are blanked first; a name after `.` or
    `->` is a member, not a use.
Declarations are read by a small scanner of top-level C statements (this
file, below), not ctags or clang: the headers of lib/ hide the declared
name behind attribute macros (`extern T x XR_WEAK;`), which ctags reads as
the name unless each macro is passed to it by hand, and clang's AST dump
needs each port's compiler and target and knows nothing of macros. The
scanner takes the macro names from lib/ itself, needs nothing but python3,
reads the whole tree in well under a second, and its results are checked
against nm: a symbol nm finds defined but the scanner does not is a finding
(`scanner missed`), so a construct it cannot read fails loudly.

Checks:
  - no cycle between units (every cycle is printed with the identifiers of
    each edge, minus the pairs of ALLOWED below);
  - layers: control -> modes (basic, fdr, profiling) and budget -> export ->
    core -> arch, never upward (but UPWARD_OK), no mode uses another mode
    nor the budget, and the budget uses no mode;
  - rooms: a file of lib/core/<room>/ uses only rooms below its own in
    ROOMS (rooms of one level do not use each other); files directly in
    lib/core/ are room "core", unordered; no room holds more than
    ROOM_MAX_LINES lines of .c, .h, .S and .inc (each room's count is
    printed);
  - libxray-dso.a (lib/dso and its trampolines) reaches the runtime only
    through core's registration ABI (dso_abi.h): its calls (nm) and the
    names its sources use.

usage: deps.py NM LIB_DIR libxray.a libxray-dso.a
       deps.py --self-test NM CC   (builds small trees with each fault)
exit 0 clean, 1 with one line per finding"""
import collections
import os
import re
import subprocess
import sys

# budget and args (argument capture): beside the modes (no mode uses them,
# they use none), used by control.
RANK = {"control": 4, "basic": 3, "fdr": 3, "profiling": 3, "budget": 3, "args": 3,
        "export": 2, "core": 1, "arch": 0}
MODES = {"basic", "fdr", "profiling"}

# The rooms of lib/core/, lowest first; the rooms of one entry are of one
# level (neither uses the other). A room uses only the rooms of lower
# entries.
ROOMS = [
    ("base",),       # compiler helpers, reports, small containers, /proc/self/maps,
                     # the runtime's initialised flag
    ("thread",),     # thread state, the thread list, locks, fork, quiescence
    ("clock", "options", "match"),  # match: glob patterns, demanglers' spellings
    ("output",),     # files the runtime writes
    ("dispatch",),   # function ids, handler slots, the tables trampolines read,
                     # the DSO ABI
    ("objects",),    # sled maps, the registry of objects
    ("names",),      # symbols, names, option selections, the object map
    ("patch",),      # patching and its API
    ("modes",),      # the mode registry, lifecycles, the exit hook
    ("start",),      # start-up, init, version
]
ROOM_LEVEL = {room: level for level, rooms in enumerate(ROOMS) for room in rooms}
ROOM_MAX_LINES = 1500

# Upward uses that are the design, as (file, identifier): a port's
# trampolines read core's handler slots and its argument trampolines the
# argument hook (the one way from a patched sled into the runtime, core's
# hot tables), and its sled encoder implements core's patching.h interface
# on core's decoded sled.
UPWARD_OK = {("arch/%s/trampoline_%s.S" % (cpu, cpu), slot)
             for cpu in ("x86_64", "aarch64")
             for slot in ("xr_handler_full", "xr_handler_lean")} | \
            {("arch/%s/args_trampoline_%s.S" % (cpu, cpu), "xr_args_hook")
             for cpu in ("x86_64", "aarch64")} | \
            {("arch/%s/patch_%s.c" % (cpu, cpu), name)
             for cpu in ("x86_64", "aarch64")
             for name in ("xr_patch_sled", "xr_patch_sled_retarget",
                          "xr_patch_sled_retarget_finish", "xr_sled_before_return",
                          "xr_sled_enabled", "struct xr_sled")}

# Interfaces between the two archives: what such a header declares, the
# runtime defines for the shared objects (their libxray-dso.a calls it), so
# the declarations belong to the header, as arch.h's do to it: the runtime's
# files that define them use the header, the header uses none of them.
ABI_HEADERS = {"core/dispatch/dso_abi.h"}

# The calls a shared object's libxray-dso.a may make into the executable's
# runtime: the registration ABI (core's dso_abi.h) and the trampolines it
# falls back to when it cannot patch its own.
DSO_MAY_CALL = {"__xray_register_dso", "__xray_deregister_dso", "__xray_dso_dispatch",
                "__xray_dso_dense_dispatch", "__xray_dso_dense_dispatch_sp",
                "__xray_FunctionEntry", "__xray_FunctionExit",
                "__xray_FunctionTailExit", "__xray_ArgLoggerEntry"}

# Unit pairs (paths under lib/ without the extension, e.g.
# ("core/objects/objects", "core/patch/patching")) whose edges, either way,
# are left out of the cycle check: each is a cycle another piece of work
# removes; empty this list as they land. Every cycle is still printed, its
# allowed edges marked *.
ALLOWED = {frozenset(p) for p in [
]}

C_WORDS = set("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed
sizeof static struct switch typedef union unsigned void volatile while _Bool
_Complex _Atomic _Noreturn _Thread_local _Alignas _Alignof _Static_assert
__thread __restrict __restrict__ __inline __inline__ __volatile__ __asm__ asm
__extension__ __typeof__ typeof __attribute__ __builtin_va_list bool
__tag__""".split())

COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"?|'
                               r"'(?:\\.|[^'\\\n])*'?", re.S)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?([^\n]*)", re.M)
DIRECTIVE = re.compile(r"^[ \t]*#[^\n]*", re.M)
ASM_MACRO = re.compile(r"^[ \t]*\.macro[ \t]+([A-Za-z_]\w*)", re.M)
ASM_GLOBAL = re.compile(r"^[ \t]*\.(?:globl|global)[ \t]+([A-Za-z_]\w*)", re.M)
# A name, with what precedes it: member access, or a tag keyword.
NAME_USE = re.compile(r"(?:(->|\.|\b(?:struct|union|enum)\b)\s*)?\b([A-Za-z_]\w*)")
TAG_USE = re.compile(r"\b(struct|union|enum)\s+([A-Za-z_]\w*)")
IDENT = re.compile(r"[A-Za-z_]\w*")
ASM_LABEL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:__asm__|asm)\s*\(\s*"
                       r'"([^"]+)"\s*\)')


def strip(text):
    """(code with comments blanked, strings kept; code with both blanked).
    Newlines are kept, so line numbers stay right."""
    def blank(m, strings):
        s = m.group(0)
        if s[0] in "\"'":
            return s if not strings else s[0] + " " * max(0, len(s) - 2) + s[-1]
        return re.sub(r"[^\n]", " ", s)
    no_comments = COMMENT_OR_STRING.sub(lambda m: blank(m, False), text)
    return no_comments, COMMENT_OR_STRING.sub(lambda m: blank(m, True), text)


def balanced(s, i):
    """Index just past the bracket that closes the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        c = s[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def split_top(s, sep):
    """s split at `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for j, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(s[start:j])
            start = j + 1
    parts.append(s[start:])
    return parts


def flatten(s):
    """s with each outermost {...} emptied to {}."""
    out, i = [], 0
    while True:
        j = s.find("{", i)
        if j < 0:
            out.append(s[i:])
            return "".join(out)
        out.append(s[i:j] + "{}")
        i = balanced(s, j)


def drop_calls(s, names):
    """s without `name(...)` for each name (attributes, __asm__ labels)."""
    for m in reversed(list(re.finditer(r"\b(%s)\s*\(" % "|".join(names), s))):
        s = s[:m.start()] + " " + s[balanced(s, m.end() - 1):]
    return s


def statements(code):
    """The top-level statements of code whose directives are blanked: each
    declaration up to its `;`, a function definition up to its body's `}`."""
    out, depth, start = [], 0, 0
    for m in re.finditer(r"[;{}()\[\]]", code):
        c = m.group(0)
        if c in "([{":
            if c == "{" and depth == 0:
                open_at = m.start()
            depth += 1
        elif c in ")]}":
            depth -= 1
            if c == "}" and depth == 0:
                head = code[start:open_at].strip()
                if re.search(r"\)\s*$", head) and "=" not in flatten(head):
                    out.append(code[start:m.end()])
                    start = m.end()
        elif depth == 0:
            out.append(code[start:m.end()])
            start = m.end()
    return out


def declarator_name(d, macros):
    """(name, is_function) of one declarator's text, or (None, False)."""
    d = split_top(d, "=")[0]
    m = re.match(r"[^(]*\(\s*\*+\s*(?:const\s+)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\)"
                 r"\s*[(\[]", d)
    if m:
        return m.group(1), False
    m = re.match(r"[^(]*\(\s*([A-Za-z_]\w*)\s*\)\s*\(", d)  # int (f)(void): not a macro
    if m and m.group(1) not in C_WORDS:
        return m.group(1), True
    if "(" in d:
        names = IDENT.findall(d[:d.index("(")])
        names = [n for n in names if n not in C_WORDS and n not in macros]
        return (names[-1], True) if names else (None, False)
    d = re.sub(r"\[[^\]]*\]", " ", d)
    names = [n for n in IDENT.findall(d) if n not in C_WORDS and n not in macros]
    return (names[-1], False) if names else (None, False)


def scan_statement(s, macros, weak_macros):
    """What one top-level statement declares: [(namespace, name, kind,
    flags)], namespace "tag" or "name"; kind one of struct, union, enum,
    type, enum constant, fn, inline fn, data; flags a set of extern, static,
    weak, body."""
    out = []
    for m in re.finditer(r"\b(struct|union|enum)\s+([A-Za-z_]\w*)\s*\{", s):
        out.append(("tag", m.group(2), m.group(1), {"body"}))
    for m in re.finditer(r"\benum\b\s*(?:[A-Za-z_]\w*)?\s*\{", s):
        body = s[m.end():balanced(s, m.end() - 1) - 1]
        for item in split_top(body, ","):
            names = IDENT.findall(item)
            if names:
                out.append(("name", names[0], "enum constant", set()))
    flat = flatten(s.rstrip().rstrip(";"))
    words = set(IDENT.findall(flat))
    flags = {w for w in ("extern", "static") if w in words}
    if "weak" in words or words & weak_macros:
        flags.add("weak")
    has_body = bool(re.search(r"\)\s*\{\}\s*$", flat))
    if "alias" in words and "__attribute__" in words:
        flags.add("body")  # defined as another symbol's alias
    flat = drop_calls(flat, ["__attribute__", "__asm__", "asm", "_Alignas", "_Atomic",
                             "__typeof__", "typeof"])
    if flat.lstrip().startswith(("_Static_assert", "static_assert")):
        return out
    if has_body:
        flat = flat.rstrip()[:-2]
    flat = re.sub(r"\b(struct|union|enum)\s+[A-Za-z_]\w*", " __tag__ ", flat)
    flat = flat.replace("{}", " ")
    typedef = "typedef" in words
    for d in split_top(flat, ","):
        name, is_fn = declarator_name(d, macros)
        if name is None:
            continue
        if typedef:
            out.append(("name", name, "type", set()))
        elif is_fn:
            out.append(("name", name, "inline fn" if has_body else "fn",
                        flags | ({"body"} if has_body else set())))
            flags = flags - {"body"}
        else:
            out.append(("name", name, "data", flags | (set() if "extern" in flags
                                                         else {"body"})))
        if has_body:
            break
    return out


class File:
    def __init__(self, rel, text):
        self.rel = rel
        self.ext = rel.rsplit(".", 1)[-1]
        self.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        no_comments, code = strip(text)
        code = re.sub(r"\\\n", "  ", code)  # continuation lines joined
        self.includes = INCLUDE.findall(no_comments)
        self.code = code
        self.defines = [(m.group(1), bool(m.group(2)), m.group(3))
                        for m in DEFINE.finditer(code)]
        self.asm_macros = ASM_MACRO.findall(code) if self.ext in ("S", "inc") else []
        self.asm_globals = ASM_GLOBAL.findall(code) if self.ext in ("S", "inc") else []
        # symbol -> C name, for `T name __asm__("symbol")`
        self.asm_labels = {m.group(2): m.group(1) for m in ASM_LABEL.finditer(no_comments)}


def unit_of(rel):
    return rel.rsplit(".", 1)[0]


class Tree:
    """The files of lib/, their units, declarations, definitions and uses."""

    def __init__(self, lib):
        self.lib = lib
        self.files = {}
        for root, dirs, names in os.walk(lib):
            dirs.sort()
            for f in sorted(names):
                if f.endswith((".c", ".h", ".S", ".inc")):
                    path = os.path.join(root, f)
                    rel = os.path.relpath(path, lib).replace(os.sep, "/")
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        self.files[rel] = File(rel, fh.read())
        self.units = collections.defaultdict(list)
        for rel in self.files:
            self.units[unit_of(rel)].append(rel)
        self.notes = []
        self.macros = set()
        weak_macros = set()
        for f in self.files.values():
            for name, _, body in f.defines:
                self.macros.add(name)
                if re.search(r"\bweak\b", body):
                    weak_macros.add(name)
        self._resolve_includes()
        # declarations of headers: (ns, name) -> [(header, kind, flags)]
        self.decls = collections.defaultdict(list)
        # non-static definitions of .c/.S files: name -> {file}
        self.defs = collections.defaultdict(set)
        # struct/union/enum bodies anywhere: name -> {file}
        self.bodies = collections.defaultdict(set)
        self.tag_kind = {}
        # tags a file forward-declares or names: file -> {name}
        for rel, f in sorted(self.files.items()):
            header = f.ext in ("h", "inc")
            if header:
                for name, _, _ in f.defines:
                    self.decls[("name", name)].append((rel, "macro", set()))
                for name in f.asm_macros:
                    self.decls[("name", name)].append((rel, "macro", set()))
            for name in f.asm_globals:
                self.defs[name].add(rel)
            if f.ext == "S":
                continue
            body = DIRECTIVE.sub(lambda m: " " * len(m.group(0)), f.code)
            for s in statements(body):
                for ns, name, kind, flags in scan_statement(s, self.macros, weak_macros):
                    if ns == "tag":
                        self.bodies[name].add(rel)
                        self.tag_kind[name] = kind
                        if header:
                            self.decls[(ns, name)].append((rel, kind, flags))
                    elif header:
                        self.decls[(ns, name)].append((rel, kind, flags))
                    elif kind in ("fn", "inline fn", "data") and "body" in flags \
                            and "static" not in flags and "extern" not in flags:
                        self.defs[name].add(rel)

    def _resolve_includes(self):
        self.direct = {}
        for rel, f in self.files.items():
            out = []
            for inc in f.includes:
                if inc.startswith("xray/"):
                    continue
                beside = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
                beside = beside.replace(os.sep, "/")
                if beside in self.files:
                    out.append(beside)
                elif inc in self.files:
                    out.append(inc)
                else:
                    self.notes.append(f"note: lib/{rel} includes \"{inc}\", not found "
                                      f"under lib/")
            self.direct[rel] = out
        self.closure = {}
        for rel in self.files:
            seen, todo = set(), [rel]
            while todo:
                for inc in self.direct[todo.pop()]:
                    if inc not in seen:
                        seen.add(inc)
                        todo.append(inc)
            seen.add(rel)
            self.closure[rel] = seen

    def show(self, unit):
        """A unit as printed: core/clock.{c,h}, core/lean.h."""
        files = self.units[unit]
        if len(files) == 1:
            return files[0]
        return "%s.{%s}" % (unit, ",".join(sorted(f.rsplit(".", 1)[1] for f in files)))


def nm_symbols(nm, archive, names):
    """(defined: symbol -> (file, nm type), used: file -> set of undefined
    symbols, weak: set of symbols defined weak, members: set of files)"""
    text = subprocess.run([nm, "-A", archive], capture_output=True, text=True,
                          check=True).stdout
    defined, used, weak, members = {}, collections.defaultdict(set), set(), set()
    for line in text.splitlines():
        where, _, rest = line.rpartition(":")
        member = where.split(":")[-1]
        fields = rest.split()
        if member not in names:
            sys.exit(f"deps.py: {archive} member {member} has no source under lib/")
        members.add(names[member])
        if len(fields) == 2 and fields[0] in ("U", "w", "v"):
            used[names[member]].add(fields[1])
        elif len(fields) == 3 and fields[1] in "VW":
            weak.add(fields[2])
        elif len(fields) == 3 and fields[1].isupper() and fields[1] not in "UN":
            defined.setdefault(fields[2], (names[member], fields[1]))
    return defined, used, weak, members


def object_names(tree):
    """object file name (x.c.o) -> path under lib/ (basenames are unique)."""
    out = {}
    for rel in tree.files:
        if rel.endswith((".c", ".S")):
            base = os.path.basename(rel) + ".o"
            if base in out:
                sys.exit(f"deps.py: two sources named {base[:-2]}: map them by path")
            out[base] = rel
    return out


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
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


def layer(unit):
    return unit.split("/", 1)[0]


def room(unit):
    """The room of a unit of lib/core/, or None."""
    parts = unit.split("/")
    if parts[0] != "core":
        return None
    return parts[1] if len(parts) > 2 else "core"


def describe(refs):
    """`fn a, b; type struct x` from {(label, name)}."""
    by = collections.defaultdict(set)
    for label, name in refs:
        by[label].add(name)
    by["opaque type"] -= by["type"]  # named with and without its body in scope
    by = {label: names for label, names in by.items() if names}
    order = ["fn", "data", "inline fn", "type", "opaque type", "enum constant", "macro",
             "declares fn", "declares data"]
    return "; ".join(f"{label} {', '.join(sorted(by[label]))}"
                     for label in sorted(by, key=lambda x: (order.index(x)
                                                            if x in order else 99, x)))


def port(rel):
    """The CPU folder of a file of lib/arch/<cpu>/, or None."""
    parts = rel.split("/")
    return parts[1] if parts[0] == "arch" and len(parts) > 2 else None


def edges_of(tree, nm_defined, nm_used, nm_weak):
    """(from unit, to unit) -> {(label, name, from file)}"""
    edges = collections.defaultdict(set)
    defs = collections.defaultdict(set)
    for name, files in tree.defs.items():
        defs[name] |= files
    for name, (rel, _) in nm_defined.items():
        defs[tree.files[rel].asm_labels.get(name, name)].add(rel)
    # What a port defines for a header outside its folder (arch/arch.h,
    # core's sled encoder) implements that header's interface: the name
    # belongs to the header. name -> {header unit}
    interface = collections.defaultdict(set)
    for (ns, name), decls in tree.decls.items():
        for h, kind, flags in decls:
            if kind in ("fn", "data") and "body" not in flags and any(
                    port(d) and port(d) != port(h) for d in defs.get(name, ())):
                interface[name].add(unit_of(h))

    def owners(header, name, kind, flags, user):
        """Units that own a name a header declares, as seen from file user."""
        if kind in ("fn", "data") and "body" not in flags:
            if "weak" in flags or name in nm_weak or header in ABI_HEADERS:
                return {unit_of(header)}
            found = {d for d in defs.get(name, ())
                     if not port(d) or port(d) == port(header)}
            if name in interface and not found:
                return {unit_of(header)}
            found = {unit_of(d) for d in found
                     if not port(user) or not port(d) or port(d) == port(user)}
            if found:
                return found
        return {unit_of(header)}

    for rel, f in tree.files.items():
        here = unit_of(rel)
        scope = tree.closure[rel]
        tags = set()
        for m in TAG_USE.finditer(f.code):
            tags.add(m.group(2))
        for name in tags:
            in_scope = [(h, k, fl) for h, k, fl in tree.decls.get(("tag", name), ())
                        if h in scope]
            if in_scope or rel in tree.bodies.get(name, ()):
                for h, kind, _ in in_scope:
                    if unit_of(h) != here:
                        edges[(here, unit_of(h))].add(("type", f"{kind} {name}", rel))
                continue
            bodies = tree.bodies.get(name, set())
            if len(bodies) == 1:
                (b,) = bodies
                if unit_of(b) != here:
                    kind = tree.tag_kind[name]
                    edges[(here, unit_of(b))].add(("opaque type", f"{kind} {name}", rel))
        names = set()
        for m in NAME_USE.finditer(f.code):
            if not m.group(1):
                names.add(m.group(2))
        for name in names:
            declared = False
            for h, kind, flags in tree.decls.get(("name", name), ()):
                if h not in scope:
                    continue
                declared = True
                for owner in owners(h, name, kind, flags, rel):
                    if owner == here:
                        continue
                    label = ("declares " + kind) if h == rel else kind
                    edges[(here, owner)].add((label, name, rel))
            for d in (() if declared else defs.get(name, ())):
                owner = unit_of(d)
                if port(d) and port(rel) and port(d) != port(rel):
                    continue
                if owner != here and any(h in scope for h in tree.units[owner]
                                         if h.endswith(".h")):
                    kind = "fn" if nm_defined.get(name, ("", "T"))[1] in "Tt" else "data"
                    edges[(here, owner)].add((kind, name, rel))
    for src, syms in nm_used.items():
        for s in syms:
            if s in nm_defined and nm_defined[s][0] != src:
                dst, t = nm_defined[s]
                name = tree.files[dst].asm_labels.get(s, s)
                label = "fn" if t in "Tt" else "data"
                for owner in (interface[name] if port(dst) and name in interface
                              else {unit_of(dst)}):
                    if owner != unit_of(src):
                        edges[(unit_of(src), owner)].add((label, name, src))
    return edges


def check(nm, lib, archive, dso_archive, out=print):
    """The findings (printing every cycle and each room's size first)."""
    tree = Tree(lib)
    names = object_names(tree)
    nm_defined, nm_used, nm_weak, _ = nm_symbols(nm, archive, names)
    dso_defined, dso_used, _, dso_members = nm_symbols(nm, dso_archive, names)
    bad = []
    for s, (rel, _) in sorted(nm_defined.items()) + sorted(dso_defined.items()):
        s = tree.files[rel].asm_labels.get(s, s)
        if rel.endswith(".S"):
            continue  # assembly defines through its macros: nm is its reader
        if rel not in tree.defs.get(s, ()):
            bad.append(f"lib/{rel}: scanner missed {s}, which nm finds defined there "
                       f"(teach deps.py the construct)")
    edges = edges_of(tree, nm_defined, nm_used, nm_weak)
    for line in tree.notes:
        out(line)

    def labels(key):
        return describe({(label, name) for label, name, _ in edges[key]})

    for (a, b), refs in sorted(edges.items()):
        la, lb = layer(a), layer(b)
        if la == lb:
            continue
        if la == "dso" or lb == "dso":
            continue
        if la not in RANK or lb not in RANK:
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: lib/{la if la not in RANK else lb}/"
                       f" is in no layer of deps.py's RANK")
            continue
        if la in MODES and lb in MODES:
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: a mode uses another mode "
                       f"({labels((a, b))})")
        elif RANK[lb] >= RANK[la] and not all((rel, name) in UPWARD_OK
                                             for _, name, rel in refs):
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: {la} uses {lb}, above it "
                       f"({labels((a, b))})")

    # rooms
    sizes = collections.Counter()
    for rel, f in tree.files.items():
        r = room(unit_of(rel))
        if r:
            sizes[r] += f.lines
    for r in sorted(sizes, key=lambda r: (ROOM_LEVEL.get(r, -1), r)):
        where = "lib/core/" if r == "core" else f"lib/core/{r}/"
        level = ROOM_LEVEL.get(r)
        out(f"room {r:<9} level {'-' if level is None else level:>2}: {sizes[r]:5d} lines "
            f"({where})")
        if r == "core":
            continue
        if level is None:
            bad.append(f"{where}: room {r} is not in deps.py's ROOMS")
        if sizes[r] > ROOM_MAX_LINES:
            bad.append(f"{where}: room {r} holds {sizes[r]} lines, more than "
                       f"{ROOM_MAX_LINES}")
    for (a, b), refs in sorted(edges.items()):
        ra, rb = room(a), room(b)
        if not ra or not rb or ra == rb or "core" in (ra, rb):
            continue
        if ra not in ROOM_LEVEL or rb not in ROOM_LEVEL:
            continue
        if ROOM_LEVEL[rb] == ROOM_LEVEL[ra]:
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: room {ra} uses room {rb} of its "
                       f"own level ({labels((a, b))})")
        elif ROOM_LEVEL[rb] > ROOM_LEVEL[ra]:
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: room {ra} uses room {rb}, above "
                       f"it ({labels((a, b))})")

    # the shared object's part
    dso_units = {unit_of(rel) for rel in dso_members}
    dso_units |= {unit_of(rel) for rel in tree.files if layer(rel) == "dso"}
    for src, syms in sorted(dso_used.items()):
        for s in sorted(syms):
            owner = nm_defined.get(s)
            if owner is not None and s not in DSO_MAY_CALL:
                bad.append(f"{src} -> {owner[0]}: the shared object's part calls {s}, not "
                           f"core's registration ABI")
    for (a, b), refs in sorted(edges.items()):
        if a not in dso_units or b in dso_units:
            continue
        off = {(label, name) for label, name, rel in refs
               if not (layer(b) == "arch" and not any(
                   f.endswith((".c", ".S")) for f in tree.units[b]))
               and not b.endswith("/dso_abi") and name not in DSO_MAY_CALL}
        if off:
            bad.append(f"{tree.show(a)} -> {tree.show(b)}: the shared object's part uses "
                       f"the runtime's {describe(off)}, not core's registration ABI")
    if any(layer(b) == "dso" and layer(a) != "dso" for a, b in edges):
        for a, b in sorted(edges):
            if layer(b) == "dso" and layer(a) != "dso":
                bad.append(f"{tree.show(a)} -> {tree.show(b)}: the runtime uses the shared "
                           f"object's part ({labels((a, b))})")

    # cycles
    graph = collections.defaultdict(set)
    for (a, b) in edges:
        graph[a].add(b)
        graph[b]
    found = cycles(graph)
    if found:
        out("all cycles between units (allowed edges marked *):")
        for part in found:
            out("  cycle: " + " ".join(tree.show(u) for u in part))
            for (a, b) in sorted(edges):
                if a < b and a in part and (b, a) in edges:
                    out(f"    two-way: {tree.show(a)} <-> {tree.show(b)}")
            for (a, b) in sorted(edges):
                if a in part and b in part:
                    mark = "*" if frozenset((a, b)) in ALLOWED else " "
                    out(f"   {mark} {tree.show(a)} -> {tree.show(b)}: {labels((a, b))}")
    rest = collections.defaultdict(set)
    for (a, b) in edges:
        if frozenset((a, b)) not in ALLOWED:
            rest[a].add(b)
            rest[b]
    for part in cycles(rest):
        bad.append("cycle not in the allowlist: " + " ".join(tree.show(u) for u in part))
    for pair in sorted(sorted(p) for p in ALLOWED):
        if not any(all(x in part for x in pair) for part in found):
            out(f"note: allowlist pair {' / '.join(pair)} is in no cycle now: remove it")
    return bad


def nm_case(defs, calls):
    """A .c file that defines functions calling others, declared locally
    (no header: only nm sees these calls)."""
    body = "".join(f"void {c}(void);\n" for c in calls)
    return body + "".join(f"void {d}(void) {{ {' '.join(c + '();' for c in calls)} }}\n"
                          for d in defs)


# Each fault, in a tree of its own files; the comment says what finds it.
SELF_TEST_FAULTS = {
    # calls only (nm): a <-> b; c calls up into basic; basic calls fdr; fdr
    # calls core (so c -> m -> n -> c is a cycle too); the DSO calls xr_b.
    "core/a.c": nm_case(["xr_a"], ["xr_b"]),
    "core/b.c": nm_case(["xr_b"], ["xr_a"]),
    "core/c.c": nm_case(["xr_c"], ["xr_m"]),
    "basic/m.c": nm_case(["xr_m"], ["xr_n"]),
    "fdr/n.c": nm_case(["xr_n"], ["xr_c"]),
    "dso/d.c": nm_case(["xr_d"], ["xr_b", "__xray_register_dso"]),
    "core/r.c": nm_case(["__xray_register_dso"], []),
    # a type cycle without a call: ta.c uses tb.h's struct, tb.c ta.h's macro
    "core/ta.h": "#define XR_TA_SIZE 16\n",
    "core/ta.c": '#include "core/ta.h"\n#include "core/tb.h"\n'
                 "int xr_ta_size(void) { struct xr_tb t = {0}; return t.n + XR_TA_SIZE; }\n",
    "core/tb.h": "struct xr_tb { int n; };\n",
    "core/tb.c": '#include "tb.h"\n#include "ta.h"\n'
                 "int xr_tb_room(void) { return XR_TA_SIZE; }\n",
    # a data cycle: each reads the other's extern variable (da.c only its
    # size, which leaves nm nothing to see)
    "core/da.h": "extern int xr_da_count;\n",
    "core/da.c": '#include "core/da.h"\n#include "core/db.h"\n'
                 "int xr_da_count;\nunsigned long xr_da_size(void) { return sizeof xr_db_flag; }\n",
    "core/db.h": "extern int xr_db_flag;\n",
    "core/db.c": '#include "core/db.h"\n#include "core/da.h"\n'
                 "int xr_db_flag;\nint xr_db_read(void) { return xr_da_count; }\n",
    # a header that declares another file's function, which uses its type
    "core/hd.h": "struct xr_hd { int a; };\nvoid xr_he_run(struct xr_hd *p);\n",
    "core/he.c": '#include "core/hd.h"\nvoid xr_he_run(struct xr_hd *p) { p->a = 1; }\n',
    # core uses a mode's macro (no call)
    "basic/bm.h": "#define XR_BM_LIMIT 64\n",
    "core/u.c": '#include "basic/bm.h"\nint xr_u_limit(void) { return XR_BM_LIMIT; }\n',
    # rooms: base uses thread's type (sizeof: no call); clock uses a macro
    # of options (same level); a room not in ROOMS; a room too large
    "core/base/lo.h": "unsigned long xr_lo_size(void);\n",
    "core/base/lo.c": '#include "core/base/lo.h"\n#include "core/thread/hi.h"\n'
                      "unsigned long xr_lo_size(void) { return sizeof(struct xr_hi); }\n",
    "core/thread/hi.h": "struct xr_hi { int a; };\n",
    "core/clock/ck.c": '#include "core/options/op.h"\nint xr_ck_max(void) { return XR_OP_MAX; }\n',
    "core/options/op.h": "#define XR_OP_MAX 8\n",
    "core/attic/old.h": "#define XR_OLD 1\n",
    "core/output/big.h": "/* */\n" * (ROOM_MAX_LINES + 1),
    # the shared object's part uses a runtime macro
    "dso/e.c": '#include "core/ta.h"\nint xr_e_size(void) { return XR_TA_SIZE; }\n',
}
SELF_TEST_WANT = [
    "cycle not in the allowlist: core/a.c core/b.c",
    "cycle not in the allowlist: basic/m.c core/c.c fdr/n.c",
    "core/c.c -> basic/m.c: core uses basic, above it (fn xr_m)",
    "basic/m.c -> fdr/n.c: a mode uses another mode (fn xr_n)",
    "dso/d.c -> core/b.c: the shared object's part calls xr_b, not core's "
    "registration ABI",
    "cycle not in the allowlist: core/ta.{c,h} core/tb.{c,h}",
    "cycle not in the allowlist: core/da.{c,h} core/db.{c,h}",
    "cycle not in the allowlist: core/hd.h core/he.c",
    "core/u.c -> basic/bm.h: core uses basic, above it (macro XR_BM_LIMIT)",
    "core/base/lo.{c,h} -> core/thread/hi.h: room base uses room thread, above it "
    "(type struct xr_hi)",
    "core/clock/ck.c -> core/options/op.h: room clock uses room options of its own "
    "level (macro XR_OP_MAX)",
    "lib/core/attic/: room attic is not in deps.py's ROOMS",
    "lib/core/output/: room output holds %d lines, more than %d" % (ROOM_MAX_LINES + 1,
                                                                     ROOM_MAX_LINES),
    "dso/e.c -> core/ta.{c,h}: the shared object's part uses the runtime's macro "
    "XR_TA_SIZE, not core's registration ABI",
]

# A tree in order, with the patterns the real one has: core's weak slot for
# a built-in mode, which the mode fills and whose registry it calls; a port's
# trampolines reading core's handler slots; arch.h's interface, which each
# port implements on arch.h's type; the DSO through the ABI header; a local
# name that matches another room's macro; a member named like a function of
# a room above; a tag named like a variable of a room above.
SELF_TEST_CLEAN = {
    "core/base/common.h": '#define XR_HIDDEN __attribute__((visibility("hidden")))\n'
                          "#define XR_WEAK __attribute__((weak))\n",
    "core/base/heap.h": '#include "common.h"\nXR_HIDDEN void xr_heap_sort(int *v, int n);\n',
    "core/base/heap.c": '#include "heap.h"\nvoid xr_heap_sort(int *v, int n) { (void)v; (void)n; }\n',
    "core/modes/reg.h": '#include "core/base/common.h"\n'
                        "struct xr_impl { int (*init)(void); };\n"
                        "XR_HIDDEN extern const struct xr_impl xr_basic_impl XR_WEAK;\n"
                        "XR_HIDDEN void xr_reg_flush(const struct xr_impl *impl);\n",
    "core/modes/reg.c": '#include "reg.h"\n#include "core/base/heap.h"\n'
                        "static const struct xr_impl *const builtins[] = {&xr_basic_impl};\n"
                        "void xr_reg_flush(const struct xr_impl *impl) {\n"
                        "  (void)impl; xr_heap_sort(0, builtins[0] != 0); }\n",
    "basic/mode.c": '#include "core/modes/reg.h"\n'
                    "static int init(void) { xr_reg_flush(&xr_basic_impl); return 0; }\n"
                    "const struct xr_impl xr_basic_impl = {init};\n",
    "core/clock/ck2.h": "#define XR_CK_TICKS 3\n",
    "core/options/op2.c": "enum { XR_CK_TICKS = 5 };\n"
                          "struct opt { int xr_reg_flush; };\n"
                          "int xr_op2(struct opt *o) { return XR_CK_TICKS + o->xr_reg_flush; }\n",
    "core/dispatch/hot.c": "void (*xr_handler_full)(void);\n",
    "arch/x86_64/trampoline_x86_64.S": ".data\n.globl xr_trampolines\nxr_trampolines:\n"
                                       ".quad xr_handler_full\n",
    "arch/arch.h": "struct xr_arch_caps { int n; };\n"
                   "void xr_arch_probe(struct xr_arch_caps *c);\n",
    "arch/x86_64/probe_x86_64.c": '#include "arch/arch.h"\n'
                                  "void xr_arch_probe(struct xr_arch_caps *c) { c->n = 1; }\n",
    "arch/aarch64/probe_aarch64.c": '#include "arch/arch.h"\n'
                                    "void xr_arch_probe(struct xr_arch_caps *c) { c->n = 2; }\n",
    "core/clock/probe.c": '#include "arch/arch.h"\n'
                          "int xr_probe(void) { struct xr_arch_caps c; xr_arch_probe(&c); "
                          "return c.n; }\n",
    # a tag and a variable of one name: `struct xr_q` is thread's type, not
    # start's variable, though start's header is included
    "core/thread/q.h": "struct xr_q { int n; };\n",
    "core/start/qs.h": '#include "core/thread/q.h"\nextern struct xr_q xr_q;\n',
    "core/start/qs.c": '#include "qs.h"\nstruct xr_q xr_q;\n',
    "core/output/qu.c": '#include "core/start/qs.h"\n'
                        "unsigned long xr_qu(void) {\n  struct xr_q *p = 0;\n"
                        "  return sizeof *p; }\n",
    # the ABI header declares what the registry (a room above) defines on
    # the header's type
    "core/dispatch/dso_abi.h": "struct xr_dso_t { int n; };\n"
                               "int __xray_register_dso(struct xr_dso_t *t);\n",
    "core/objects/registry.c": '#include "core/dispatch/dso_abi.h"\n'
                               "int __xray_register_dso(struct xr_dso_t *t) { return t->n; }\n",
    "dso/d.c": '#include "core/dispatch/dso_abi.h"\n'
               "int xr_d(void) { struct xr_dso_t t = {1}; return __xray_register_dso(&t); }\n",
}


def build_and_check(nm, cc, files, tmp):
    lib = os.path.join(tmp, "lib")
    objs = {"x": [], "dso": []}
    for rel, text in files.items():
        path = os.path.join(lib, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    for rel in files:
        if rel.endswith((".c", ".S")):
            obj = os.path.join(tmp, os.path.basename(rel) + ".o")
            subprocess.run([cc, "-c", "-I", lib, os.path.join(lib, rel), "-o", obj],
                           check=True)
            objs["dso" if rel.startswith("dso/") else "x"].append(obj)
    archives = []
    for name in ("x", "dso"):
        a = os.path.join(tmp, f"lib{name}.a")
        subprocess.run(["ar", "rcs", a] + objs[name], check=True)
        archives.append(a)
    printed = []
    return check(nm, lib, *archives, out=printed.append), printed


def self_test(nm, cc):
    import tempfile
    failed = 0
    for name, files, want in (("faults", SELF_TEST_FAULTS, SELF_TEST_WANT),
                              ("clean", SELF_TEST_CLEAN, [])):
        with tempfile.TemporaryDirectory() as tmp:
            got, printed = build_and_check(nm, cc, files, tmp)
        missing = [w for w in want if w not in got]
        extra = [g for g in got if g not in want]
        for line in missing:
            print(f"self-test {name}: not found: {line}")
        for line in extra:
            print(f"self-test {name}: unexpected: {line}")
        if missing or extra:
            failed = 1
            print("\n".join(printed))
    if not failed:
        print("self-test ok")
    return failed


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
