/* The mapping of a code address for a pprof profile: the code segment of
 * the loaded object that holds it, its path and GNU build-id, from
 * dl_iterate_phdr (libc only). Works alike for the executable and for
 * shared objects, whoever registered them. A fork child reads
 * /proc/self/maps instead: a parent thread inside dl_iterate_phdr or dlclose
 * at the fork leaves the loader's lock held in the child for ever
 * (docs/reliability.md, Fork). */
#define _GNU_SOURCE
#include "export/pprof_mapping.h"
#include "core/base/proc_maps.h"
#include "core/thread/thread.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct search {
  uintptr_t addr;
  struct xr_pprof_mapping *m;
  struct xr_pprof_mapping_text *text;
  bool found;
};

static void hex(char *dst, size_t cap, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  if (cap < 2 * n + 1)
    return;
  for (size_t i = 0; i < n; i++) {
    dst[2 * i] = digits[p[i] >> 4];
    dst[2 * i + 1] = digits[p[i] & 15];
  }
  dst[2 * n] = '\0';
}

/* Finds the NT_GNU_BUILD_ID note in a loaded PT_NOTE segment. */
static void read_build_id(const uint8_t *p, size_t size, char *dst, size_t cap) {
  size_t off = 0;
  while (size - off >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) h;
    memcpy(&h, p + off, sizeof(h));
    size_t name = (h.n_namesz + 3u) & ~(size_t)3;
    size_t desc = (h.n_descsz + 3u) & ~(size_t)3;
    off += sizeof(h);
    if (name > size - off || desc > size - off - name)
      return;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
        memcmp(p + off, "GNU", 4) == 0) {
      hex(dst, cap, p + off + name, h.n_descsz);
      return;
    }
    off += name + desc;
  }
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct search *s = arg;
  const ElfW(Phdr) *text = NULL;
  for (int i = 0; i < info->dlpi_phnum && text == NULL; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && s->addr >= start &&
        s->addr - start < ph->p_memsz)
      text = ph;
  }
  if (text == NULL)
    return 0; /* not this object: go on */
  struct xr_pprof_mapping *m = s->m;
  struct xr_pprof_mapping_text *t = s->text;
  m->memory_start = info->dlpi_addr + text->p_vaddr;
  m->memory_limit = m->memory_start + text->p_memsz;
  m->file_offset = text->p_offset;
  t->build_id[0] = '\0';
  for (int i = 0; i < info->dlpi_phnum && t->build_id[0] == '\0'; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE)
      read_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
                    ph->p_memsz, t->build_id, sizeof(t->build_id));
  }
  m->build_id = t->build_id[0] != '\0' ? t->build_id : NULL;
  t->path[0] = '\0';
  if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') {
    strncpy(t->path, info->dlpi_name, sizeof(t->path) - 1);
    t->path[sizeof(t->path) - 1] = '\0';
  } else { /* the executable has no name here */
    ssize_t n = readlink("/proc/self/exe", t->path, sizeof(t->path) - 1);
    t->path[n > 0 ? n : 0] = '\0';
  }
  m->filename = t->path[0] != '\0' ? t->path : NULL;
  s->found = true;
  return 1;
}

/* ---- a fork child: the maps ------------------------------------------- */

/* The executable mapping holding s->addr: range, offset and path. */
static int code_mapping(const struct xr_maps_entry *e, void *arg) {
  struct search *s = arg;
  if (!(e->prot & PROT_EXEC) || s->addr < e->start || s->addr >= e->end)
    return 0;
  s->m->memory_start = e->start;
  s->m->memory_limit = e->end;
  s->m->file_offset = e->offset;
  size_t n = strnlen(e->path, sizeof s->text->path - 1);
  static const char deleted[] = " (deleted)"; /* the loader's name has none */
  if (n >= sizeof deleted && memcmp(e->path + n - (sizeof deleted - 1), deleted,
                                    sizeof deleted - 1) == 0)
    n -= sizeof deleted - 1;
  memcpy(s->text->path, e->path, n);
  s->text->path[n] = '\0';
  s->found = true;
  return 1;
}

/* The same file's mapping at offset 0 (its ELF header, which the loader
 * maps first): the build-id from its program headers' PT_NOTE, read only
 * where it lies inside that mapping. */
static int header_mapping(const struct xr_maps_entry *e, void *arg) {
  struct search *s = arg;
  if (e->offset != 0 || !(e->prot & PROT_READ) || strcmp(e->path, s->text->path) != 0)
    return 0;
  uintptr_t lo = e->start, hi = e->end;
  const ElfW(Ehdr) *h = (const ElfW(Ehdr) *)lo;
  if (hi - lo < sizeof *h || memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 ||
      h->e_phentsize != sizeof(ElfW(Phdr)) || h->e_phoff > hi - lo ||
      (uintptr_t)h->e_phnum * sizeof(ElfW(Phdr)) > hi - lo - h->e_phoff)
    return 1;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(lo + h->e_phoff);
  uintptr_t bias = 0;
  bool have_bias = false;
  for (int i = 0; i < h->e_phnum && !have_bias; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
      bias = lo - ph[i].p_vaddr;
      have_bias = true;
    }
  for (int i = 0; have_bias && i < h->e_phnum && s->text->build_id[0] == '\0'; i++) {
    uintptr_t at = bias + ph[i].p_vaddr;
    if (ph[i].p_type == PT_NOTE && at >= lo && at <= hi &&
        ph[i].p_memsz <= hi - at)
      read_build_id((const uint8_t *)at, ph[i].p_memsz, s->text->build_id,
                    sizeof s->text->build_id);
  }
  return 1;
}

static void from_maps(struct search *s) {
  s->text->path[0] = '\0';
  s->text->build_id[0] = '\0';
  if (xr_maps_each(code_mapping, s) <= 0)
    return;
  if (s->text->path[0] != '\0')
    xr_maps_each(header_mapping, s);
  s->m->filename = s->text->path[0] != '\0' ? s->text->path : NULL;
  s->m->build_id = s->text->build_id[0] != '\0' ? s->text->build_id : NULL;
}

int xr_pprof_mapping_of(uintptr_t addr, struct xr_pprof_mapping *m,
                        struct xr_pprof_mapping_text *text) {
  struct search s = {addr, m, text, false};
  uint64_t id = m->id;
  memset(m, 0, sizeof(*m));
  m->id = id;
  if (addr != 0 && __atomic_load_n(&xr_process_forked, __ATOMIC_RELAXED))
    from_maps(&s);
  else if (addr != 0)
    dl_iterate_phdr(visit, &s);
  return s.found ? 0 : -1;
}
