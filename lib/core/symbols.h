/* Function names from the executable's own ELF symbol table, for readable
 * output (profiling's folded stacks and report). Cold path only: reads
 * /proc/self/exe (.symtab, else .dynsym) with mmap, libc only, and frees
 * everything in xr_symbols_close. */
#ifndef XR_SYMBOLS_H
#define XR_SYMBOLS_H

#include "common.h"

struct xr_symbol {
  uint64_t address; /* link-time address (add the bias for run time) */
  uint64_t size;
  const char *name; /* points into the mapped file */
};

struct xr_symbols {
  void *file;
  size_t file_bytes;
  struct xr_symbol *symbols; /* function symbols sorted by address */
  size_t count;
  size_t symbols_bytes;
  uintptr_t bias; /* run-time address - link-time address */
};

/* Load bias of the main executable (0 for non-PIE), from dl_iterate_phdr. */
XR_HIDDEN uintptr_t xr_symbols_self_bias(void);

/* Opens an ELF file (NULL: /proc/self/exe) whose code runs at link-time
 * address + bias. Returns 0, or -1 (s is then empty; lookups return NULL)
 * when the file cannot be read or is not a 64-bit little-endian ELF. */
XR_HIDDEN int xr_symbols_open(struct xr_symbols *s, const char *path,
                              uintptr_t bias);

/* Name of the function containing run-time address addr, or NULL. */
XR_HIDDEN const char *xr_symbols_lookup(const struct xr_symbols *s,
                                        uintptr_t addr);

XR_HIDDEN void xr_symbols_close(struct xr_symbols *s);

/* Names of function ids 1..count: the symbol at addr_of(id), else
 * "fn<id>@0x<address>". C++ names are demangled when the program links the
 * C++ runtime (weak __cxa_demangle; the runtime itself does not need it).
 * Memory from mmap (demangled names: malloc'd by __cxa_demangle); free with
 * xr_names_free. */
struct xr_names {
  struct xr_symbols symbols;
  const char **names; /* names[id], index 0 unused */
  uint8_t *demangled; /* demangled[id]: names[id] is malloc'd */
  size_t count;
  char *text; /* made-up names */
  size_t bytes;
};
XR_HIDDEN int xr_names_build(struct xr_names *n, size_t count,
                             uintptr_t (*addr_of)(int32_t id),
                             const char *path, uintptr_t bias);
/* xr_name_fn-compatible lookup (ctx is a struct xr_names *). Ids outside
 * 1..count get "fn<id>". Never NULL. */
XR_HIDDEN const char *xr_names_get(void *ctx, int32_t id);
XR_HIDDEN void xr_names_free(struct xr_names *n);

#endif
