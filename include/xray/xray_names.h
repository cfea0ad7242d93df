/* XRay extension: functions by name.
 *
 * Choose what is traced by function name at run time, and read the names of
 * function ids. A name is the demangled C++ name when the program links a
 * C++ runtime (e.g. "ns::parse(char const*)"), else the ELF symbol
 * ("parse_expr", "_ZN2ns5parseEPKc"); a function without a symbol (stripped
 * executable) is named "fn<id>@0x<address>" ("fn<id>@<file>+0x<offset>" in
 * a shared object). Names are read once, lazily, from each object's .symtab
 * (else .dynsym); see docs/names.md.
 *
 * Ids are those the handlers receive: a shared object's are packed
 * (object << 24 | function, see __xray_pack_id), the executable's are plain.
 * Patterns cover every registered object that is still loaded.
 *
 * Patterns are shell globs matched against the whole name: '*' any run of
 * characters, '?' one byte, "[a-z]" / "[!a-z]" a set, '\' quotes the next
 * character; a '[' without ']' is an ordinary character. Several patterns
 * are separated by ';' (blanks around each are ignored).
 *
 * Not part of compiler-rt's runtime. Valid C11 and C++11 and later.
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_NAMES_H
#define XRAY_XRAY_NAMES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Negative statuses of the functions below (0 or more means success). */
enum XRayNamesStatus {
  XRAY_NAMES_OK = 0,
  /* The program has no instrumentation map (not built with
   * -fxray-instrument, or the runtime is not initialised yet). */
  XRAY_NAMES_NOT_INITIALIZED = -1,
  /* Patching: another thread is patching right now; try again. Names: the
   * call interrupted (from a signal handler) this thread's own loading of
   * the names. */
  XRAY_NAMES_BUSY = -2,
  /* A NULL pointer, a function id out of range, a name that is no
   * function's, or a pattern list with no pattern in it. */
  XRAY_NAMES_INVALID = -3,
  /* Page protection could not be changed: nothing or not all was
   * (un)patched (a message says which pages). */
  XRAY_NAMES_FAILED = -4,
  /* Memory for the name table could not be mapped. */
  XRAY_NAMES_NO_MEMORY = -5
};
#ifndef __cplusplus
typedef enum XRayNamesStatus XRayNamesStatus;
#endif

/* Reads the names of the executable and of every shared object registered
 * so far now (otherwise the first call that needs them does; an object
 * registered later is read at its first use). Call it before relying on
 * the async-signal-safety of __xray_function_name / __xray_symbolize.
 * Returns XRAY_NAMES_OK, NOT_INITIALIZED, BUSY or NO_MEMORY. */
int __xray_load_names(void);

/* Patches every function whose name matches one of the ';'-separated
 * patterns, written in either demangler's spelling (docs/names.md). The
 * xray_patch/xray_skip options do not apply: this call does what it
 * says. Returns the number of functions matched, each of which is
 * now patched (0: no name matched, nothing changed), or NOT_INITIALIZED,
 * BUSY, INVALID (NULL or no pattern), FAILED, NO_MEMORY. */
int __xray_patch_matching(const char *patterns);

/* Unpatches every function whose name matches one of the patterns. Returns
 * as __xray_patch_matching (the count is of the functions now unpatched). */
int __xray_unpatch_matching(const char *patterns);

/* Ids of the functions named exactly `name` (the readable name in either
 * demangler's spelling, or the ELF symbol: "ns::f(int)" and "_ZN2ns1fEi"
 * both work, and so do "S& operator<< <int>(S&, int)" and
 * "S& operator<<<int>(S&, int)"; docs/names.md), in increasing order:
 * up to `capacity` are stored in ids (which may be NULL when capacity is
 * 0). Returns how many functions have that name (more than capacity: call
 * again with a larger array; several static functions may share a name),
 * or NOT_INITIALIZED, BUSY, INVALID (NULL name, or no function of that
 * name), NO_MEMORY. */
int __xray_function_ids(const char *name, int32_t *ids, size_t capacity);

/* Copies the name of function id into buf (size bytes, always
 * NUL-terminated when size > 0; truncated if too small). Returns the length
 * of the whole name (a result >= size means it was truncated), or
 * NOT_INITIALIZED, BUSY, INVALID (no function has that id,
 * or buf NULL with size > 0), NO_MEMORY. Async-signal-safe once the names
 * are loaded (__xray_load_names). */
int __xray_function_name(int32_t id, char *buf, size_t size);

/* Called for each instrumented function by __xray_for_each_function:
 * name as above, symbol the ELF symbol (NULL when the function has none),
 * address its run-time start. A non-zero return stops the walk. */
typedef int (*XRayFunctionVisitor)(void *context, int32_t id, const char *name,
                                   const char *symbol, uintptr_t address);

/* Calls visit for every instrumented function in id order. The strings
 * stay valid for the life of the process. Returns 0 when every function was
 * visited, the visitor's non-zero value when it stopped the walk, or
 * NOT_INITIALIZED, BUSY, INVALID (visit NULL), NO_MEMORY. */
int __xray_for_each_function(XRayFunctionVisitor visit, void *context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XRAY_XRAY_NAMES_H */
