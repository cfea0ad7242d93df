/* Growable arrays in anonymous mappings. See mmap_array.h. */
#include "core/base/mmap_array.h"

#include <string.h>
#include <sys/mman.h>

void *xr_mmap_array_grow(void *v, size_t *capacity, size_t count, size_t size,
                         size_t first) {
  if (count < *capacity)
    return v;
  size_t cap = *capacity ? *capacity * 2 : first;
  void *m = mmap(NULL, cap * size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  if (v) {
    memcpy(m, v, count * size);
    munmap(v, *capacity * size);
  }
  *capacity = cap;
  return m;
}
