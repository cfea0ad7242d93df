/* Growable arrays in anonymous mappings, for code that must not use the
 * program's allocator (patching may run before it is ready; the flush
 * writers run inside other programs' processes). */
#ifndef XR_MMAP_ARRAY_H
#define XR_MMAP_ARRAY_H

#include "core/base/common.h"

#include <stddef.h>

/* Makes room for one more element in the mapped array v of *capacity
 * elements of `size` bytes, `count` in use, doubling it from `first`.
 * Returns the array to use (v itself when there was room), or NULL when out
 * of memory (v is then left as it was). */
XR_HIDDEN void *xr_mmap_array_grow(void *v, size_t *capacity, size_t count,
                                   size_t size, size_t first);

#endif
