/* The function ids of an instrumented ELF file, from its xray_instr_map
 * section, numbered as `llvm-xray extract` and the runtime number them
 * (lib/core/objects/sled_map.c): walking the 32-byte sled entries in order,
 * 1 for the first entry's function and a new id each time the function
 * differs from the previous entry's. Entry fields: +0 sled address, +8
 * function address (version 0 and 1 absolute, a zero resolved through the
 * file's RELATIVE or 64-bit absolute relocations at that place, as a PIE's
 * .rela.dyn holds them; version 2 relative to the field's own address),
 * +16 kind, +17 always-instrument, +18 version. */
#ifndef XRAYCTL_INSTR_MAP_H
#define XRAYCTL_INSTR_MAP_H

#include "elf_file.h"

struct ctl_instr_map {
  uint64_t *functions; /* functions[id - 1]: the link-time address of id */
  size_t count;
};

/* Reads e's xray_instr_map. Returns 0, or -1 with what is wrong in err
 * (no map, an entry that is not a sled: its index). */
int ctl_instr_map_read(const struct ctl_elf *e, struct ctl_instr_map *m, char *err,
                       size_t errcap);
void ctl_instr_map_free(struct ctl_instr_map *m);

#endif
