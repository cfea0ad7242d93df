/* Reads function symbols from the executable's ELF file. See symbols.h.
 *
 * Only the section headers, one symbol table and its string table are used;
 * the file is mapped read-only and stays mapped while names are in use. */
#define _GNU_SOURCE
#include "core/names/symbols.h"
#include "core/base/heap_sort.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int first_object_bias(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  *(uintptr_t *)ctx = (uintptr_t)info->dlpi_addr;
  return 1; /* the first object is the main program */
}

/* Read once, at start-up (init.c): the bias never changes, and a fork child
 * must not call dl_iterate_phdr. glibc's fork resets the loader's main lock
 * in the child but not the lock dl_iterate_phdr takes (dl_load_write_lock),
 * which a parent thread inside dlclose may hold at the fork: the child's
 * first dl_iterate_phdr would wait for ever (docs/reliability.md, Fork). */
static uintptr_t self_bias;
static bool self_bias_known;

uintptr_t xr_symbols_self_bias(void) {
  if (__atomic_load_n(&self_bias_known, __ATOMIC_ACQUIRE))
    return __atomic_load_n(&self_bias, __ATOMIC_RELAXED);
  uintptr_t bias = 0;
  dl_iterate_phdr(first_object_bias, &bias);
  __atomic_store_n(&self_bias, bias, __ATOMIC_RELAXED); /* same for all */
  __atomic_store_n(&self_bias_known, true, __ATOMIC_RELEASE);
  return bias;
}

static bool in_file(const struct xr_symbols *s, uint64_t off, uint64_t len) {
  return off <= s->file_bytes && len <= s->file_bytes - off;
}

static int by_address(const void *a, const void *b) {
  const struct xr_symbol *x = a, *y = b;
  if (x->address != y->address)
    return x->address < y->address ? -1 : 1;
  /* aliases: the sized one first, then by name for a stable choice */
  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Collects the function symbols of one SHT_SYMTAB/SHT_DYNSYM section. */
static int load_table(struct xr_symbols *s, const Elf64_Shdr *sh,
                      const Elf64_Shdr *strtab) {
  if (sh->sh_entsize != sizeof(Elf64_Sym) ||
      !in_file(s, sh->sh_offset, sh->sh_size) ||
      !in_file(s, strtab->sh_offset, strtab->sh_size) || strtab->sh_size == 0)
    return -1;
  const char *base = s->file;
  const Elf64_Sym *syms = (const Elf64_Sym *)(const void *)(base + sh->sh_offset);
  size_t n = sh->sh_size / sizeof(Elf64_Sym);
  const char *str = base + strtab->sh_offset;
  size_t count = 0;
  for (size_t pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      Elf64_Sym sym;
      memcpy(&sym, &syms[i], sizeof(sym));
      int type = ELF64_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 ||
          sym.st_name >= strtab->sh_size || sym.st_shndx == SHN_UNDEF)
        continue;
      const char *name = str + sym.st_name;
      /* the string must end inside the table */
      if (memchr(name, '\0', strtab->sh_size - sym.st_name) == NULL ||
          name[0] == '\0')
        continue;
      if (pass == 1)
        s->symbols[count] = (struct xr_symbol){sym.st_value, sym.st_size, name};
      count++;
    }
    if (pass == 0) {
      if (count == 0)
        return -1;
      s->symbols_bytes = count * sizeof(struct xr_symbol);
      void *p = mmap(NULL, s->symbols_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        return -1;
      s->symbols = p;
      count = 0;
    }
  }
  s->count = count;
  /* Not qsort: it may malloc, and names load wherever a handler or a fork
   * child first asks for them (heap_sort.h). */
  xr_heap_sort(s->symbols, count, sizeof *s->symbols, by_address);
  return 0;
}

int xr_symbols_open(struct xr_symbols *s, const char *path, uintptr_t bias) {
  memset(s, 0, sizeof(*s));
  s->bias = bias;
  int fd = open(path != NULL ? path : "/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return -1;
  }
  void *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return -1;
  s->file = file;
  s->file_bytes = (size_t)st.st_size;
  Elf64_Ehdr eh;
  memcpy(&eh, file, sizeof(eh));
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(s, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
    goto fail;
  const Elf64_Shdr *sh =
      (const Elf64_Shdr *)(const void *)((const char *)file + eh.e_shoff);
  /* .symtab has every function; .dynsym (stripped binaries) the exported. */
  for (int want = 0; want < 2; want++) {
    uint32_t type = want == 0 ? SHT_SYMTAB : SHT_DYNSYM;
    for (size_t i = 0; i < eh.e_shnum; i++) {
      Elf64_Shdr h, strh;
      memcpy(&h, &sh[i], sizeof(h));
      if (h.sh_type != type || h.sh_link >= eh.e_shnum)
        continue;
      memcpy(&strh, &sh[h.sh_link], sizeof(strh));
      if (load_table(s, &h, &strh) == 0)
        return 0;
    }
  }
fail:
  xr_symbols_close(s);
  s->bias = bias;
  return -1;
}

const char *xr_symbols_lookup(const struct xr_symbols *s, uintptr_t addr) {
  if (s->count == 0)
    return NULL;
  uint64_t a = (uint64_t)(addr - s->bias);
  /* last symbol with address <= a */
  size_t lo = 0, hi = s->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->symbols[mid].address <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  /* among aliases at that address, sorting put the preferred one first */
  size_t i = lo - 1;
  while (i > 0 && s->symbols[i - 1].address == s->symbols[i].address)
    i--;
  const struct xr_symbol *sym = &s->symbols[i];
  if (a == sym->address || a - sym->address < sym->size)
    return sym->name;
  return NULL;
}

void xr_symbols_close(struct xr_symbols *s) {
  if (s->symbols != NULL)
    munmap(s->symbols, s->symbols_bytes);
  if (s->file != NULL)
    munmap(s->file, s->file_bytes);
  memset(s, 0, sizeof(*s));
}
