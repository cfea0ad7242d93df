/* Reads an ELF file's headers with pread. See elf_file.h. */
#define _GNU_SOURCE
#include "elf_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Section names are short; a larger table is not a compiler's. */
#define MAX_SECTION_NAMES (16u << 20)

int ctl_elf_fail(char *err, size_t errcap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errcap, fmt, ap);
  va_end(ap);
  return -1;
}

bool ctl_elf_in_file(const struct ctl_elf *e, uint64_t off, uint64_t n) {
  return off <= e->size && n <= e->size - off;
}

bool ctl_elf_read(const struct ctl_elf *e, uint64_t off, void *buf, size_t n) {
  if (!ctl_elf_in_file(e, off, n))
    return false;
  char *p = buf;
  while (n > 0) {
    ssize_t got = pread(e->fd, p, n, (off_t)off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false; /* an error, or the file shrank under us */
    p += got;
    n -= (size_t)got;
    off += (uint64_t)got;
  }
  return true;
}

int ctl_elf_open(struct ctl_elf *e, int fd, char *err, size_t errcap) {
  memset(e, 0, sizeof *e);
  e->fd = fd;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return ctl_elf_fail(err, errcap, "cannot stat: %s", strerror(errno));
  if (!S_ISREG(st.st_mode))
    return ctl_elf_fail(err, errcap, "not a regular file");
  e->size = (uint64_t)st.st_size;
  Elf64_Ehdr eh;
  unsigned char ident[EI_NIDENT] = {0};
  if (!ctl_elf_read(e, 0, ident, sizeof ident) || memcmp(ident, ELFMAG, SELFMAG) != 0)
    return ctl_elf_fail(err, errcap, "not an ELF file");
  if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
    return ctl_elf_fail(err, errcap, "not a 64-bit little-endian ELF file");
  if (!ctl_elf_read(e, 0, &eh, sizeof eh))
    return ctl_elf_fail(err, errcap, "ELF header cut short");
  if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)
    return ctl_elf_fail(err, errcap, "ELF machine %u is neither x86-64 nor AArch64",
                (unsigned)eh.e_machine);
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    return ctl_elf_fail(err, errcap, "not an executable or shared object (ELF type %u)",
                (unsigned)eh.e_type);
  e->machine = eh.e_machine;
  /* e_shnum 0 with a table means more than 65279 sections (the count in
   * section 0): no linked program has that many. */
  if (eh.e_shoff == 0 || eh.e_shnum == 0)
    return ctl_elf_fail(err, errcap, "no section headers (stripped of them?)");
  if (eh.e_shentsize != sizeof(Elf64_Shdr))
    return ctl_elf_fail(err, errcap, "section header size %u is not %zu",
                (unsigned)eh.e_shentsize, sizeof(Elf64_Shdr));
  size_t n = eh.e_shnum;
  if (!ctl_elf_in_file(e, eh.e_shoff, (uint64_t)n * sizeof(Elf64_Shdr)))
    return ctl_elf_fail(err, errcap, "section headers lie outside the file");
  e->sections = malloc(n * sizeof(Elf64_Shdr));
  if (e->sections == NULL)
    return ctl_elf_fail(err, errcap, "out of memory");
  e->section_count = n;
  if (!ctl_elf_read(e, eh.e_shoff, e->sections, n * sizeof(Elf64_Shdr))) {
    ctl_elf_close(e);
    return ctl_elf_fail(err, errcap, "cannot read the section headers");
  }
  if (eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= n) {
    ctl_elf_close(e);
    return ctl_elf_fail(err, errcap, "no section name table (e_shstrndx %u)",
                (unsigned)eh.e_shstrndx);
  }
  const Elf64_Shdr *names = &e->sections[eh.e_shstrndx];
  if (names->sh_type == SHT_NOBITS || names->sh_size > MAX_SECTION_NAMES ||
      !ctl_elf_in_file(e, names->sh_offset, names->sh_size)) {
    ctl_elf_close(e);
    return ctl_elf_fail(err, errcap, "the section name table lies outside the file");
  }
  size_t size = (size_t)names->sh_size;
  e->section_names = malloc(size + 1);
  if (e->section_names == NULL) {
    ctl_elf_close(e);
    return ctl_elf_fail(err, errcap, "out of memory");
  }
  if (!ctl_elf_read(e, names->sh_offset, e->section_names, size)) {
    ctl_elf_close(e);
    return ctl_elf_fail(err, errcap, "cannot read the section name table");
  }
  e->section_names[size] = '\0'; /* every name ends inside the copy */
  e->section_names_size = size;
  return 0;
}

const Elf64_Shdr *ctl_elf_section(const struct ctl_elf *e, const char *name) {
  for (size_t i = 0; i < e->section_count; i++) {
    const Elf64_Shdr *s = &e->sections[i];
    if (s->sh_name < e->section_names_size &&
        strcmp(e->section_names + s->sh_name, name) == 0)
      return s;
  }
  return NULL;
}

void ctl_elf_close(struct ctl_elf *e) {
  free(e->sections);
  free(e->section_names);
  int fd = e->fd;
  memset(e, 0, sizeof *e);
  e->fd = fd;
}
