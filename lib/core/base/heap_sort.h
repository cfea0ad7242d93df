/* In-place heap sort: no allocation (qsort may malloc a buffer as large as
 * the array), no recursion, no lock, so it serves signal handlers (FDR
 * snapshots) and fork children (name loading, where an allocator lock
 * another thread held may be inherited). Not stable: give cmp a total
 * order. */
#ifndef XR_HEAP_SORT_H
#define XR_HEAP_SORT_H

#include "core/base/common.h"

XR_HIDDEN void xr_heap_sort(void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *));

/* The same with ctx handed to every cmp: to order an array of indices by
 * the fields of another array the caller may not reorder (the budget's
 * policy sorts indices of the controller's table). */
XR_HIDDEN void xr_heap_sort_ctx(void *base, size_t n, size_t size,
                                int (*cmp)(const void *, const void *, void *),
                                void *ctx);

#endif
