/* Function symbols from an ELF file's symbol table, for the name table
 * (names.c). Cold path only: reads the file (.symtab, else .dynsym) with
 * mmap, libc only, and frees everything in xr_symbols_close. */
#ifndef XR_SYMBOLS_H
#define XR_SYMBOLS_H

#include "core/base/common.h"

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

/* Load bias of the main executable (0 for non-PIE), from dl_iterate_phdr at
 * the first call (made at start-up), then cached. */
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

#endif
