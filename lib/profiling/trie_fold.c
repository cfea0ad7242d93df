/* Recursion folding: merges a trie into another with every recursive call
 * folded into the frame it recurses to (docs/profiling-mode.md, "Recursion").
 *
 * Rule: a call to a function that is already on its (folded) call path is
 * merged into that earlier frame: its calls, local time and call durations
 * are added there, and its callees become that frame's callees. Direct
 * recursion main;f;f;f;g becomes main;f;g and mutual recursion
 * main;f;g;f;g;h becomes main;f;g;h. No function appears twice on a folded
 * path, so a path is at most as long as the number of distinct functions and
 * a 10 000-deep recursion costs one line, not 10 000 lines of growing length.
 * The local time of every call is kept, so the folded trie's total equals the
 * original's; a folded node's total_time is the local time of everything
 * folded into its subtree. */
#include "profiling/trie_fold.h"
#include "profiling/call_trie.h"

#include <sys/mman.h>

/* Where a call of fid under folded node p goes: the nearest frame on p's
 * path with that function, else p's child for fid (NULL: no memory). */
static struct xr_trie_node *fold_target(struct xr_trie *dst,
                                        struct xr_trie_node *p, int32_t fid) {
  for (struct xr_trie_node *a = p; a != &dst->root; a = a->parent)
    if (a->fid == fid)
      return a;
  return xr_trie_child(dst, p, fid);
}

static void add_call_stats(struct xr_trie_node *d, const struct xr_trie_node *s) {
  d->count += s->count;
  for (int b = 0; b < XR_HIST_BUCKETS; b++) {
    uint64_t sum = (uint64_t)d->hist[b] + s->hist[b];
    d->hist[b] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
  }
}

/* Next node in pre-order after s's subtree, or NULL. */
static const struct xr_trie_node *skip_subtree(const struct xr_trie_node *s,
                                               const struct xr_trie_node *root) {
  while (s != root && s->next_sibling == NULL)
    s = s->parent;
  return s == root ? NULL : s->next_sibling;
}

uint64_t xr_trie_fold_merge(struct xr_trie *dst, const struct xr_trie *src) {
  const struct xr_trie_node *root = &src->root;
  uint32_t depth = 0;
  for (const struct xr_trie_node *s = root->first_child; s != NULL;
       s = xr_trie_next(s, root))
    if (s->depth > depth)
      depth = s->depth;
  uint64_t lost = 0;
  if (depth != 0) {
    /* at[k]: the folded node of the src node at depth k on the walk path */
    size_t bytes = ((size_t)depth + 1) * sizeof(struct xr_trie_node *);
    struct xr_trie_node **at = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED)
      return UINT64_MAX;
    at[0] = &dst->root;
    const struct xr_trie_node *s = root->first_child;
    while (s != NULL) {
      struct xr_trie_node *d = fold_target(dst, at[s->depth - 1], s->fid);
      if (d == NULL) {
        lost++;
        s = skip_subtree(s, root);
        continue;
      }
      at[s->depth] = d;
      add_call_stats(d, s);
      uint64_t local = xr_trie_local_time(s);
      for (struct xr_trie_node *a = d; a != &dst->root; a = a->parent)
        a->total_time += local;
      s = xr_trie_next(s, root);
    }
    munmap(at, bytes);
  }
  dst->lost.no_memory += src->lost.no_memory;
  dst->lost.too_deep += src->lost.too_deep;
  dst->lost.unmatched_exit += src->lost.unmatched_exit;
  return lost;
}
