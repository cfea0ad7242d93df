/* The folded-stacks view of a (merged) call trie (profile_folded.c). Cold
 * path; memory for scratch arrays comes from mmap. */
#ifndef XR_PROFILING_PROFILE_FOLDED_H
#define XR_PROFILING_PROFILE_FOLDED_H

#include "core/output/text_out.h"
#include "profiling/call_trie.h"
#include "profiling/profile_views.h"

enum xr_folded_value { XR_FOLDED_TIME = 0, XR_FOLDED_CALLS = 1 };

/* One line per trie node, in pre-order: `root;...;leaf <value>\n`, where
 * value is the node's local time in ns (XR_FOLDED_TIME) or its call count.
 * Names are written as given except that ';', ' ' and newlines, which the
 * format uses, become '_'. Returns 0, or -1 on a write or memory failure. */
XR_HIDDEN int xr_folded_write(const struct xr_trie *t, enum xr_folded_value v,
                              xr_name_fn name, void *name_ctx,
                              xr_to_ns_fn to_ns, struct xr_text_out *out);

#endif
