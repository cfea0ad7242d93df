/* Recursion folding (trie_fold.c): a merge of call tries that folds every
 * recursive call into the frame it recurses to. */
#ifndef XR_PROFILING_TRIE_FOLD_H
#define XR_PROFILING_TRIE_FOLD_H

#include "core/base/common.h"
#include "profiling/call_trie.h"

/* Like xr_trie_merge, with recursion folded: a call to a function already
 * on its path is merged into that earlier frame. Returns the number of src
 * nodes that could not be merged, UINT64_MAX when not even the walk's
 * scratch memory was available. */
XR_HIDDEN uint64_t xr_trie_fold_merge(struct xr_trie *dst,
                                      const struct xr_trie *src);

#endif
