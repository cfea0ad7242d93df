/* A module's dynamic string table, read in place (dynamic_names.h). */
#define _GNU_SOURCE /* dl_phdr_info */
#include "core/objects/dynamic_names.h"

#include <link.h>
#include <string.h>

uint32_t xr_module_dynamic_names(const struct dl_phdr_info *info,
                                 const char *const *names, unsigned count) {
  const ElfW(Dyn) *dyn = NULL;
  for (size_t i = 0; i < info->dlpi_phnum && dyn == NULL; i++)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dyn == NULL)
    return 0;
  uintptr_t table = 0;
  size_t size = 0;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    if (dyn->d_tag == DT_STRTAB)
      table = (uintptr_t)dyn->d_un.d_ptr;
    else if (dyn->d_tag == DT_STRSZ)
      size = (size_t)dyn->d_un.d_val;
  }
  if (table == 0 || size == 0)
    return 0;
  /* glibc relocates the address in place (x86-64, AArch64); a loader that
   * leaves the file's value leaves one below the load address. */
  if (table < info->dlpi_addr)
    table += info->dlpi_addr;
  const char *s = (const char *)table, *end = s + size;
  uint32_t found = 0;
  /* Whole strings only: a name the linker stored as the tail of a longer
   * one is not seen, which no runtime call's name is in practice. */
  for (const char *p = s; p < end; p += strnlen(p, (size_t)(end - p)) + 1)
    for (unsigned i = 0; i < count && i < 32; i++) {
      size_t n = strlen(names[i]);
      if ((size_t)(end - p) > n && memcmp(p, names[i], n + 1) == 0)
        found |= 1u << i;
    }
  return found;
}
