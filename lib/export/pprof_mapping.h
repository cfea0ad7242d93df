/* Mappings of the running program for pprof profiles. Cold path. */
#ifndef XR_EXPORT_PPROF_MAPPING_H
#define XR_EXPORT_PPROF_MAPPING_H

#include "export/pprof.h"

#include <limits.h>

/* Room for the strings a mapping points to. */
struct xr_pprof_mapping_text {
  char path[PATH_MAX];
  char build_id[2 * 64 + 1]; /* hex */
};

/* Finds the loaded object (executable or shared object) whose code segment
 * contains addr, from dl_iterate_phdr: fills m's range (that segment), file
 * offset, path (the executable's from /proc/self/exe) and GNU build-id in
 * hex, with strings in *text; m->id is left to the caller. In a fork child,
 * from /proc/self/maps: the range is the segment's whole pages, and a
 * deleted file has no build-id. Returns 0, or -1 when no loaded object's
 * code contains addr. */
XR_HIDDEN int xr_pprof_mapping_of(uintptr_t addr, struct xr_pprof_mapping *m,
                                  struct xr_pprof_mapping_text *text);

#endif
