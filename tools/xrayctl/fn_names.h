/* Function names for xrayctl's file commands (report, convert): the name
 * of each function id a basic, FDR or profiling file holds, from the
 * instrumented binary (-m: its xray_instr_map and symbol table, ids as
 * `llvm-xray extract` numbers them) and from the object map the runtime
 * writes beside the log (<log>.map, docs/formats.md: every object's
 * functions under the ids the log holds). C11, libc only; C++ names are
 * demangled by the system's C++ runtime when it has one (loaded at run
 * time), else kept mangled. Both inputs may be hostile: every size and
 * offset is checked, and memory grows with the number of functions. */
#ifndef XRAYCTL_FN_NAMES_H
#define XRAYCTL_FN_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct ctl_names;

/* Reads the names of `binary` (the -m argument: an ELF64 little-endian
 * x86-64 or AArch64 executable or shared object with xray_instr_map; NULL:
 * none) and of `map` (a .map path; NULL: none). Where both name an id, the
 * map's name wins: it covers the shared objects and was written by the
 * program's own demangler. Returns NULL with a message in err (errcap
 * bytes, NUL-terminated; it names the file, and for a map the line) when
 * a file cannot be read or is not what it should be. Both NULL: a table
 * that knows no id. */
struct ctl_names *ctl_names_open(const char *binary, const char *map, char *err,
                                 size_t errcap);

/* The (demangled) name of `id` as the trace file holds it, or NULL when no
 * input names it (print the id then). O(1); the string lives until
 * ctl_names_close. */
const char *ctl_names_get(const struct ctl_names *n, int32_t id);

/* Frees everything; NULL is fine. */
void ctl_names_close(struct ctl_names *n);

/* The sidecar object map of a trace file: `trace` + ".map", written into out
 * (cap bytes) and returned when that file exists; NULL when it does not
 * (or the path does not fit in cap). */
const char *ctl_names_sidecar(const char *trace, char *out, size_t cap);

#endif
