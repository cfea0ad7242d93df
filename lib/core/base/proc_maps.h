/* /proc/self/maps, one mapping at a time: what a fork child reads in place
 * of dl_iterate_phdr, whose lock a parent thread may have held at the fork
 * (docs/reliability.md, Fork). Cold path. */
#ifndef XR_PROC_MAPS_H
#define XR_PROC_MAPS_H

#include "core/base/common.h"

struct xr_maps_entry {
  uintptr_t start, end; /* [start, end) */
  uint64_t offset;      /* in the file */
  int prot;             /* PROT_READ | PROT_WRITE | PROT_EXEC */
  const char *path;     /* "" for an anonymous mapping; valid during fn only */
};

/* Calls fn for each mapping in address order until it returns nonzero.
 * Returns fn's nonzero value, 0 after the last mapping, or -1 when the file
 * cannot be opened. Allocates nothing; a line longer than PATH_MAX + 256
 * bytes (never written by Linux) is skipped. */
XR_HIDDEN int xr_maps_each(int (*fn)(const struct xr_maps_entry *e, void *ctx),
                           void *ctx);

/* Maps `size` bytes read-write, anonymous, at a free range inside [lo, hi)
 * (all three multiples of the page size) as close to `near` as any, found in
 * /proc/self/maps (MAP_FIXED_NOREPLACE: a range another thread maps
 * meanwhile is left to it, and the next one tried). Not within 64 MiB
 * above the heap or below the stack, which grow there. NULL when no range
 * could be had. Cold path. */
XR_HIDDEN void *xr_maps_map_near(uintptr_t lo, uintptr_t hi, uintptr_t near, size_t size);

#endif
