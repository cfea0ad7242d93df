/* Folded-stacks output ("a;b;c 123" per line), the input of flamegraph.pl,
 * inferno and speedscope. */
#include "profiling/profile_folded.h"

#include <string.h>
#include <sys/mman.h>

static uint32_t max_depth(const struct xr_trie *t) {
  uint32_t d = 0;
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root))
    if (n->depth > d)
      d = n->depth;
  return d;
}

static void put_name(struct xr_text_out *out, const char *s) {
  size_t i = 0, start = 0;
  for (; s[i] != '\0'; i++) {
    if (s[i] == ';' || s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
      xr_text_put(out, s + start, i - start);
      xr_text_put(out, "_", 1);
      start = i + 1;
    }
  }
  xr_text_put(out, s + start, i - start);
}

int xr_folded_write(const struct xr_trie *t, enum xr_folded_value v,
                    xr_name_fn name, void *name_ctx, xr_to_ns_fn to_ns,
                    struct xr_text_out *out) {
  uint32_t depth = max_depth(t);
  if (depth == 0)
    return xr_text_flush(out);
  size_t bytes = (size_t)depth * sizeof(const char *);
  const char **path = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (path == MAP_FAILED)
    return -1;
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root)) {
    path[n->depth - 1] = name(name_ctx, n->fid);
    for (uint32_t i = 0; i < n->depth; i++) {
      if (i != 0)
        xr_text_put(out, ";", 1);
      put_name(out, path[i]);
    }
    xr_text_put(out, " ", 1);
    uint64_t value = v == XR_FOLDED_CALLS ? n->count
                                          : to_ns(xr_trie_local_time(n));
    xr_text_u64(out, value);
    xr_text_put(out, "\n", 1);
  }
  munmap(path, bytes);
  return xr_text_flush(out);
}
