/* An ELF file read with pread, for the names of -m BINARY (fn_names.c):
 * its header and section headers, checked against the file's size, so a
 * hostile file is refused with a message and never read out of bounds.
 * Only what XRay's function ids need: ELF64 little-endian, x86-64 or
 * AArch64, an executable or a shared object (PIE included). */
#ifndef XRAYCTL_ELF_FILE_H
#define XRAYCTL_ELF_FILE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctl_elf {
  int fd;
  uint64_t size;             /* of the file */
  uint16_t machine;          /* EM_X86_64 or EM_AARCH64 */
  Elf64_Shdr *sections;      /* e_shnum headers, each inside the file */
  size_t section_count;
  char *section_names;       /* .shstrtab, NUL-terminated */
  size_t section_names_size;
};

/* Reads fd's ELF and section headers (fd stays the caller's). Returns 0,
 * or -1 with what is wrong in err (without the file's name). */
int ctl_elf_open(struct ctl_elf *e, int fd, char *err, size_t errcap);
void ctl_elf_close(struct ctl_elf *e);

/* The first section named `name`, or NULL. */
const Elf64_Shdr *ctl_elf_section(const struct ctl_elf *e, const char *name);

/* Reads n bytes at off; false when they are not all inside the file. */
bool ctl_elf_read(const struct ctl_elf *e, uint64_t off, void *buf, size_t n);

/* Is [off, off + n) inside the file? */
bool ctl_elf_in_file(const struct ctl_elf *e, uint64_t off, uint64_t n);

/* Formats a message into err (the ELF readers' errors). Returns -1. */
int ctl_elf_fail(char *err, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
