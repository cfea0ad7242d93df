/* The executable's mapping for a pprof profile: its code segment's run-time
 * range, file offset, path and GNU build-id, from dl_iterate_phdr (libc
 * only). Shared objects get theirs from the object registry once it has
 * them. */
#define _GNU_SOURCE
#include "export/pprof_mapping.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

struct self_info {
  struct xr_pprof_mapping *m;
  char *build_id;
  size_t build_id_cap;
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

/* The first object dl_iterate_phdr reports is the executable. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct self_info *s = arg;
  bool have_text = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && !have_text) {
      s->m->memory_start = info->dlpi_addr + ph->p_vaddr;
      s->m->memory_limit = s->m->memory_start + ph->p_memsz;
      s->m->file_offset = ph->p_offset;
      have_text = true;
    } else if (ph->p_type == PT_NOTE && s->build_id_cap != 0 &&
               s->build_id[0] == '\0') {
      read_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
                    ph->p_memsz, s->build_id, s->build_id_cap);
    }
  }
  return 1;
}

void xr_pprof_self_mapping(struct xr_pprof_mapping *m, char *path,
                           size_t path_cap, char *build_id,
                           size_t build_id_cap) {
  memset(m, 0, sizeof(*m));
  m->id = 1;
  if (build_id_cap != 0)
    build_id[0] = '\0';
  struct self_info s = {m, build_id, build_id_cap};
  dl_iterate_phdr(first_object, &s);
  m->build_id = build_id_cap != 0 && build_id[0] != '\0' ? build_id : NULL;
  if (path_cap != 0) {
    ssize_t n = readlink("/proc/self/exe", path, path_cap - 1);
    if (n > 0) {
      path[n] = '\0';
      m->filename = path;
    }
  }
}
