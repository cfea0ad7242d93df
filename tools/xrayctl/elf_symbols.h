/* The function symbols at given addresses of an ELF file (the starts of
 * its instrumented functions), from .symtab, else .dynsym (a stripped
 * file), read in chunks with pread. Among aliases at one address the sized
 * one wins, then the first by strcmp: the runtime's choice
 * (lib/core/names/symbols.c), so its names and these agree. */
#ifndef XRAYCTL_ELF_SYMBOLS_H
#define XRAYCTL_ELF_SYMBOLS_H

#include "elf_file.h"

/* names[i] (malloc'd, as the symbol table spells it, not demangled) is the
 * symbol at link-time address addrs[i], or NULL when none starts there
 * (or its name is longer than 1 MiB). Returns 0, or -1 with err set (out
 * of memory, a symbol table outside the file); names are then all NULL. */
int ctl_elf_symbols_at(const struct ctl_elf *e, const uint64_t *addrs, size_t count,
                       char **names, char *err, size_t errcap);

#endif
