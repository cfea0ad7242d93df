/* The pprof view of a (merged) call trie (profile_pprof.c, over the writer
 * of lib/export/pprof.h). Cold path; memory for scratch arrays comes from
 * mmap. */
#ifndef XR_PROFILING_PROFILE_PPROF_H
#define XR_PROFILING_PROFILE_PPROF_H

#include "core/output/text_out.h"
#include "export/pprof.h"
#include "export/pprof_mapping.h"
#include "profiling/call_trie.h"
#include "profiling/profile_views.h"

struct xr_pprof_view_info {
  struct xr_pprof_info profile;         /* times and comment */
  uintptr_t (*address_of)(int32_t fid); /* run-time address, or NULL */
  /* The symbol as in the binary (C++: mangled), or NULL; NULL: none. */
  const char *(*system_name_of)(int32_t fid);
  /* The mapping holding a code address (xr_pprof_mapping_of): fills all of
   * *m but its id; 0, or -1 when none does. NULL: no mappings. */
  int (*mapping_of)(uintptr_t addr, struct xr_pprof_mapping *m,
                    struct xr_pprof_mapping_text *text);
};

/* pprof profile.proto (lib/export/pprof.h): one sample per node with calls
 * and local time in ns, leaf first; a function and a location per function
 * id, with its name and address; a mapping per object that holds one of
 * those addresses (ids 1, 2, ... in order of function id). Returns 0 or -1. */
XR_HIDDEN int xr_pprof_view_write(const struct xr_trie *t,
                                  const struct xr_pprof_view_info *info,
                                  xr_name_fn name, void *name_ctx,
                                  xr_to_ns_fn to_ns, struct xr_text_out *out);

#endif
