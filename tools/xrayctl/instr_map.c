/* Function ids from xray_instr_map, read in chunks with pread. See
 * instr_map.h. Memory: the map's relocations (one word per address field,
 * only when a field needs one) and one address per function. */
#include "instr_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_SIZE 32
#define CHUNK_ENTRIES 256
#define MAX_KIND 5    /* typed event */
#define MAX_VERSION 2 /* what the runtime accepts (sled_map.c) */

static uint64_t load_u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The values relocations give the two address fields of each entry:
 * field k (entry k / 2, +0 or +8) is value[k] when known[k]. */
struct relocs {
  uint64_t *value;
  unsigned char *known;
};

static bool is_relative(uint16_t machine, uint32_t type) {
  return machine == EM_X86_64 ? type == R_X86_64_RELATIVE : type == R_AARCH64_RELATIVE;
}

static bool is_abs64(uint16_t machine, uint32_t type) {
  return machine == EM_X86_64 ? type == R_X86_64_64 : type == R_AARCH64_ABS64;
}

/* The value of symbol `index` of the table `symtab` (a section index). */
static bool symbol_value(const struct ctl_elf *e, uint32_t symtab, uint64_t index,
                         uint64_t *out) {
  if (index == 0) {
    *out = 0;
    return true;
  }
  if (symtab >= e->section_count)
    return false;
  const Elf64_Shdr *t = &e->sections[symtab];
  if ((t->sh_type != SHT_DYNSYM && t->sh_type != SHT_SYMTAB) ||
      t->sh_entsize != sizeof(Elf64_Sym) || index >= t->sh_size / sizeof(Elf64_Sym))
    return false;
  Elf64_Sym sym;
  if (!ctl_elf_read(e, t->sh_offset + index * sizeof sym, &sym, sizeof sym))
    return false;
  *out = sym.st_value;
  return true;
}

/* Records the relocations of one SHT_RELA section that land on an address
 * field of the map's `entries` entries at link-time address `addr`: a
 * RELATIVE one gives its addend, a 64-bit absolute one its symbol's value
 * plus the addend. The first one for a field wins, as in llvm-xray. */
static int scan_rela(const struct ctl_elf *e, const Elf64_Shdr *sh, uint64_t addr,
                     size_t entries, struct relocs *r, char *err, size_t errcap) {
  if (sh->sh_entsize != sizeof(Elf64_Rela) || sh->sh_size % sizeof(Elf64_Rela) ||
      !ctl_elf_in_file(e, sh->sh_offset, sh->sh_size))
    return ctl_elf_fail(err, errcap, "a relocation section (%s) lies outside the file or has "
                "entries of %llu bytes",
                sh->sh_name < e->section_names_size ? e->section_names + sh->sh_name : "?",
                (unsigned long long)sh->sh_entsize);
  uint64_t total = sh->sh_size / sizeof(Elf64_Rela);
  Elf64_Rela chunk[CHUNK_ENTRIES];
  for (uint64_t done = 0; done < total;) {
    size_t n = total - done < CHUNK_ENTRIES ? (size_t)(total - done) : CHUNK_ENTRIES;
    if (!ctl_elf_read(e, sh->sh_offset + done * sizeof(Elf64_Rela), chunk, n * sizeof chunk[0]))
      return ctl_elf_fail(err, errcap, "cannot read a relocation section");
    done += n;
    for (size_t i = 0; i < n; i++) {
      const Elf64_Rela *rel = &chunk[i];
      if (rel->r_offset < addr || (rel->r_offset - addr) % 8 != 0 ||
          (rel->r_offset - addr) / ENTRY_SIZE >= entries)
        continue;
      uint64_t at = rel->r_offset - addr;
      if (at % ENTRY_SIZE >= 16)
        continue; /* kind, flags, version, padding: not an address */
      size_t field = (size_t)(at / ENTRY_SIZE * 2 + at % ENTRY_SIZE / 8);
      uint32_t type = (uint32_t)ELF64_R_TYPE(rel->r_info);
      uint64_t value;
      if (is_relative(e->machine, type)) {
        value = (uint64_t)rel->r_addend;
      } else if (is_abs64(e->machine, type)) {
        if (!symbol_value(e, sh->sh_link, ELF64_R_SYM(rel->r_info), &value))
          return ctl_elf_fail(err, errcap, "a relocation of xray_instr_map names a symbol "
                                   "that is not in its symbol table");
        value += (uint64_t)rel->r_addend;
      } else {
        continue;
      }
      if (!r->known[field]) {
        r->known[field] = 1;
        r->value[field] = value;
      }
    }
  }
  return 0;
}

static int load_relocs(const struct ctl_elf *e, uint64_t addr, size_t entries,
                       struct relocs *r, char *err, size_t errcap) {
  r->value = calloc(entries * 2, sizeof *r->value);
  r->known = calloc(entries * 2, 1);
  if (r->value == NULL || r->known == NULL)
    return ctl_elf_fail(err, errcap, "out of memory");
  for (size_t i = 0; i < e->section_count; i++)
    if (e->sections[i].sh_type == SHT_RELA &&
        scan_rela(e, &e->sections[i], addr, entries, r, err, errcap) != 0)
      return -1;
  return 0;
}

struct sled {
  uint64_t address, function;
  unsigned kind, version;
};

struct builder {
  struct ctl_instr_map *map;
  size_t cap;
};

/* A new id each time the function differs from the previous entry's. */
static int add_function(struct builder *b, size_t i, const struct sled *s) {
  struct ctl_instr_map *m = b->map;
  if (i > 0 && m->functions[m->count - 1] == s->function)
    return 0;
  if (m->count == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 64;
    uint64_t *f = realloc(m->functions, cap * sizeof *f);
    if (f == NULL)
      return -1;
    m->functions = f;
    b->cap = cap;
  }
  m->functions[m->count++] = s->function;
  return 0;
}

/* Decodes every entry into b's functions. A zero field of version 0/1 is
 * taken from r when r is given. Returns -1 (err set) when an entry cannot
 * be a sled or the section cannot be read. */
static int read_entries(const struct ctl_elf *e, const Elf64_Shdr *sh, size_t entries,
                        const struct relocs *r, struct builder *b, char *err, size_t errcap) {
  unsigned char chunk[CHUNK_ENTRIES * ENTRY_SIZE];
  for (size_t done = 0; done < entries;) {
    size_t n = entries - done < CHUNK_ENTRIES ? entries - done : CHUNK_ENTRIES;
    if (!ctl_elf_read(e, sh->sh_offset + (uint64_t)done * ENTRY_SIZE, chunk, n * ENTRY_SIZE))
      return ctl_elf_fail(err, errcap, "cannot read xray_instr_map");
    for (size_t k = 0; k < n; k++) {
      size_t i = done + k;
      const unsigned char *p = chunk + k * ENTRY_SIZE;
      struct sled s = {load_u64(p), load_u64(p + 8), p[16], p[18]};
      if (s.kind > MAX_KIND || s.version > MAX_VERSION)
        return ctl_elf_fail(err, errcap, "xray_instr_map entry %zu is not a sled (kind %u, "
                    "version %u)", i, s.kind, s.version);
      if (r != NULL && s.version < 2) {
        if (s.address == 0 && r->known[2 * i])
          s.address = r->value[2 * i];
        if (s.function == 0 && r->known[2 * i + 1])
          s.function = r->value[2 * i + 1];
      }
      if (s.version >= 2) { /* relative to the field's own link-time address */
        uint64_t at = sh->sh_addr + (uint64_t)i * ENTRY_SIZE;
        s.address += at;
        s.function += at + 8;
      }
      if (s.function == 0 || s.address == 0)
        return ctl_elf_fail(err, errcap, "xray_instr_map entry %zu has no address (an "
                    "unrelocated object file?)", i);
      if (add_function(b, i, &s) != 0)
        return ctl_elf_fail(err, errcap, "out of memory");
    }
    done += n;
  }
  return 0;
}

/* Does a version 0/1 entry hold a zero address, which a relocation fills? */
static bool needs_relocs(const struct ctl_elf *e, const Elf64_Shdr *sh, size_t entries) {
  unsigned char chunk[CHUNK_ENTRIES * ENTRY_SIZE];
  for (size_t done = 0; done < entries;) {
    size_t n = entries - done < CHUNK_ENTRIES ? entries - done : CHUNK_ENTRIES;
    if (!ctl_elf_read(e, sh->sh_offset + (uint64_t)done * ENTRY_SIZE, chunk, n * ENTRY_SIZE))
      return false; /* read_entries says so */
    for (size_t k = 0; k < n; k++) {
      const unsigned char *p = chunk + k * ENTRY_SIZE;
      if (p[18] < 2 && (load_u64(p) == 0 || load_u64(p + 8) == 0))
        return true;
    }
    done += n;
  }
  return false;
}

int ctl_instr_map_read(const struct ctl_elf *e, struct ctl_instr_map *m, char *err,
                       size_t errcap) {
  memset(m, 0, sizeof *m);
  const Elf64_Shdr *sh = ctl_elf_section(e, "xray_instr_map");
  if (sh == NULL)
    return ctl_elf_fail(err, errcap, "no xray_instr_map section (not built with "
                             "-fxray-instrument, or no function was instrumented)");
  if (sh->sh_type == SHT_NOBITS || !ctl_elf_in_file(e, sh->sh_offset, sh->sh_size))
    return ctl_elf_fail(err, errcap, "xray_instr_map lies outside the file");
  if (sh->sh_size % ENTRY_SIZE != 0)
    return ctl_elf_fail(err, errcap, "xray_instr_map holds %llu bytes, not a multiple of %d",
                (unsigned long long)sh->sh_size, ENTRY_SIZE);
  size_t entries = (size_t)(sh->sh_size / ENTRY_SIZE);
  if (entries == 0)
    return ctl_elf_fail(err, errcap, "xray_instr_map is empty");
  struct relocs r = {NULL, NULL};
  bool relocate = needs_relocs(e, sh, entries);
  int rc = 0;
  if (relocate)
    rc = load_relocs(e, sh->sh_addr, entries, &r, err, errcap);
  struct builder b = {m, 0};
  if (rc == 0)
    rc = read_entries(e, sh, entries, relocate ? &r : NULL, &b, err, errcap);
  free(r.value);
  free(r.known);
  if (rc != 0)
    ctl_instr_map_free(m);
  return rc;
}

void ctl_instr_map_free(struct ctl_instr_map *m) {
  free(m->functions);
  memset(m, 0, sizeof *m);
}
