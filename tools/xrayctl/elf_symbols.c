/* Function symbols at given addresses. See elf_symbols.h. Memory: one
 * entry per distinct address and the chosen names; the symbol table is read
 * CHUNK symbols at a time. */
#define _GNU_SOURCE
#include "elf_symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 512
#define MAX_NAME (1u << 20)

struct place {
  uint64_t address;
  uint64_t size; /* of the chosen symbol */
  char *name;    /* the chosen symbol, NULL: none yet */
};

static int by_address(const void *a, const void *b) {
  const struct place *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

/* The place at `address`, or NULL. */
static struct place *find(struct place *p, size_t n, uint64_t address) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].address < address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && p[lo].address == address ? &p[lo] : NULL;
}

/* The NUL-terminated string at off of the string table t (malloc'd), or
 * NULL when it does not end inside the table, is empty or too long. */
static char *read_name(const struct ctl_elf *e, const Elf64_Shdr *t, uint64_t off) {
  if (off >= t->sh_size)
    return NULL;
  uint64_t room = t->sh_size - off;
  size_t cap = 0, len = 0;
  char *s = NULL;
  for (;;) {
    size_t want = room - len < 256 ? (size_t)(room - len) : 256;
    if (want == 0 || len + want > MAX_NAME)
      break;
    if (len + want + 1 > cap) {
      cap = cap ? 2 * cap : 512;
      while (cap < len + want + 1)
        cap *= 2;
      char *bigger = realloc(s, cap);
      if (bigger == NULL)
        break;
      s = bigger;
    }
    if (!ctl_elf_read(e, t->sh_offset + off + len, s + len, want))
      break;
    char *nul = memchr(s + len, '\0', want);
    if (nul != NULL)
      return nul == s ? (free(s), NULL) : s;
    len += want;
  }
  free(s);
  return NULL;
}

static bool better(const struct place *p, uint64_t size, const char *name) {
  if (p->name == NULL)
    return true;
  if (size != p->size)
    return size > p->size;
  return strcmp(name, p->name) < 0;
}

/* Offers every function symbol of table sh to the places. Returns the
 * number of function symbols seen, or -1 (err set). */
static long long scan_table(const struct ctl_elf *e, const Elf64_Shdr *sh,
                            struct place *places, size_t n, char *err, size_t errcap) {
  if (sh->sh_entsize != sizeof(Elf64_Sym) || !ctl_elf_in_file(e, sh->sh_offset, sh->sh_size) ||
      sh->sh_link >= e->section_count)
    return ctl_elf_fail(err, errcap, "a symbol table lies outside the file or is malformed");
  const Elf64_Shdr *strtab = &e->sections[sh->sh_link];
  if (strtab->sh_type != SHT_STRTAB || !ctl_elf_in_file(e, strtab->sh_offset, strtab->sh_size))
    return ctl_elf_fail(err, errcap, "a symbol table's string table lies outside the file");
  uint64_t total = sh->sh_size / sizeof(Elf64_Sym);
  long long functions = 0;
  Elf64_Sym chunk[CHUNK];
  for (uint64_t done = 0; done < total;) {
    size_t k = total - done < CHUNK ? (size_t)(total - done) : CHUNK;
    if (!ctl_elf_read(e, sh->sh_offset + done * sizeof(Elf64_Sym), chunk, k * sizeof chunk[0]))
      return ctl_elf_fail(err, errcap, "cannot read a symbol table");
    done += k;
    for (size_t i = 0; i < k; i++) {
      const Elf64_Sym *sym = &chunk[i];
      int type = ELF64_ST_TYPE(sym->st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_shndx == SHN_UNDEF ||
          sym->st_value == 0)
        continue;
      functions++;
      struct place *p = find(places, n, sym->st_value);
      if (p == NULL || (p->name != NULL && sym->st_size < p->size))
        continue;
      char *name = read_name(e, strtab, sym->st_name);
      if (name != NULL && better(p, sym->st_size, name)) {
        free(p->name);
        p->name = name;
        p->size = sym->st_size;
      } else {
        free(name);
      }
    }
  }
  return functions;
}

int ctl_elf_symbols_at(const struct ctl_elf *e, const uint64_t *addrs, size_t count,
                       char **names, char *err, size_t errcap) {
  memset(names, 0, count * sizeof *names);
  if (count == 0)
    return 0;
  struct place *places = calloc(count, sizeof *places);
  if (places == NULL)
    return ctl_elf_fail(err, errcap, "out of memory");
  for (size_t i = 0; i < count; i++)
    places[i].address = addrs[i];
  qsort(places, count, sizeof *places, by_address);
  size_t n = 0; /* distinct addresses */
  for (size_t i = 0; i < count; i++)
    if (n == 0 || places[n - 1].address != places[i].address)
      places[n++] = places[i];
  int rc = 0;
  /* .symtab has every function; .dynsym (a stripped file) the exported. */
  static const uint32_t tables[2] = {SHT_SYMTAB, SHT_DYNSYM};
  for (int t = 0; t < 2 && rc == 0; t++) {
    long long seen = 0;
    for (size_t i = 0; i < e->section_count && seen >= 0; i++)
      if (e->sections[i].sh_type == tables[t]) {
        long long s = scan_table(e, &e->sections[i], places, n, err, errcap);
        seen = s < 0 ? s : seen + s;
      }
    if (seen < 0)
      rc = -1;
    else if (seen > 0)
      break;
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    const struct place *p = find(places, n, addrs[i]);
    if (p->name != NULL && (names[i] = strdup(p->name)) == NULL)
      rc = ctl_elf_fail(err, errcap, "out of memory");
  }
  for (size_t i = 0; i < n; i++)
    free(places[i].name);
  free(places);
  if (rc != 0) {
    for (size_t i = 0; i < count; i++)
      free(names[i]);
    memset(names, 0, count * sizeof *names);
  }
  return rc;
}
