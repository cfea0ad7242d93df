/* Serialises thread tries into compiler-rt's profile blocks. See
 * profile_blocks.h for the layout. The blocks are little-endian, like every
 * port (x86-64; AArch64 as Linux runs it), so fields are copied as they are
 * in memory. */
#include "profiling/profile_blocks.h"

#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "profile blocks are copied from memory: little-endian only");

static size_t record_bytes(const struct xr_trie_node *n) {
  return 20u + 4u * (size_t)n->depth;
}

/* Visits the blocks a trie needs: calls emit(block records' first node, end
 * node, bytes) for each. Shared by the size pass and the write pass. */
struct block_span {
  const struct xr_trie_node *first; /* first record's node */
  const struct xr_trie_node *end;   /* node after the last record, or NULL */
  size_t bytes;                     /* records' bytes */
};

static const struct xr_trie_node *next_span(const struct xr_trie *t,
                                            const struct xr_trie_node *from,
                                            size_t max_block,
                                            struct block_span *span) {
  size_t limit = max_block > XR_PROFILE_BLOCK_HEADER_BYTES
                     ? max_block - XR_PROFILE_BLOCK_HEADER_BYTES
                     : 1;
  span->first = from;
  span->bytes = 0;
  const struct xr_trie_node *n = from;
  while (n != NULL) {
    size_t r = record_bytes(n);
    if (span->bytes != 0 && span->bytes + r > limit)
      break; /* a single oversized record still gets its own block */
    span->bytes += r;
    n = xr_trie_next(n, &t->root);
  }
  span->end = n;
  return n;
}

size_t xr_profile_size(struct xr_trie *const *tries, size_t n,
                       size_t max_block_bytes) {
  size_t total = XR_PROFILE_HEADER_BYTES;
  for (size_t i = 0; i < n; i++) {
    const struct xr_trie_node *from = tries[i]->root.first_child;
    while (from != NULL) {
      struct block_span span;
      from = next_span(tries[i], from, max_block_bytes, &span);
      total += XR_PROFILE_BLOCK_HEADER_BYTES + span.bytes;
    }
  }
  return total;
}

static char *put64(char *p, uint64_t v) {
  memcpy(p, &v, 8);
  return p + 8;
}
static char *put32(char *p, uint32_t v) {
  memcpy(p, &v, 4);
  return p + 4;
}

size_t xr_profile_write(void *buf, size_t size, struct xr_trie *const *tries,
                        size_t n, size_t max_block_bytes,
                        const struct xr_profile_header_info *info) {
  char *p = buf, *end = p + size;
  if (size < XR_PROFILE_HEADER_BYTES)
    return 0;
  p = put64(p, XR_PROFILE_MAGIC);
  p = put64(p, XR_PROFILE_VERSION);
  p = put64(p, info->timestamp_ns);
  p = put64(p, info->pid);
  uint32_t number = 0;
  for (size_t i = 0; i < n; i++) {
    const struct xr_trie *t = tries[i];
    const struct xr_trie_node *from = t->root.first_child;
    while (from != NULL) {
      struct block_span span;
      from = next_span(t, from, max_block_bytes, &span);
      size_t block = XR_PROFILE_BLOCK_HEADER_BYTES + span.bytes;
      if ((size_t)(end - p) < block || block > UINT32_MAX)
        return (size_t)(p - (char *)buf);
      p = put32(p, (uint32_t)block);
      p = put32(p, number++);
      p = put64(p, (uint64_t)(int64_t)t->tid);
      for (const struct xr_trie_node *r = span.first; r != span.end;
           r = xr_trie_next(r, &t->root)) {
        for (const struct xr_trie_node *a = r; a != &t->root; a = a->parent)
          p = put32(p, (uint32_t)a->fid);
        p = put32(p, 0);
        p = put64(p, r->count);
        p = put64(p, r->total_time);
      }
    }
  }
  return (size_t)(p - (char *)buf);
}
