/* The binary profile, node by node. See profile_read.h. */
#include "profile_read.h"
#include "fdr/fdr_records.h"

#include <stdlib.h>

enum { HEADER = 32, BLOCK_HEADER = 16 };

/* One record at `at` (its block ends at end): its path into *path. */
static int read_node(struct ctl_in *in, uint64_t at, uint64_t end, int32_t **path,
                     size_t *cap, struct ctl_profile_node *n, uint64_t *next) {
  uint64_t start = at;
  uint32_t depth = 0;
  for (;;) {
    const uint8_t *p = end - at >= 4 ? ctl_in_at(in, at, 4) : NULL;
    if (p == NULL)
      return in->failed ? -1
                        : ctl_in_fail(in, start, "a call path runs past the end of "
                                      "its block (byte %llu)", (unsigned long long)end);
    at += 4;
    int32_t id = (int32_t)xr_fdr_get32(p);
    if (id == 0)
      break;
    if (depth == *cap) {
      size_t more = *cap ? 2 * *cap : 64;
      int32_t *bigger = realloc(*path, more * sizeof *bigger);
      if (bigger == NULL)
        return ctl_in_fail(in, start, "out of memory for a call path of %u functions",
                           depth);
      *path = bigger;
      *cap = more;
    }
    (*path)[depth++] = id;
  }
  if (depth == 0)
    return ctl_in_fail(in, start, "a record with an empty call path");
  const uint8_t *v = end - at >= 16 ? ctl_in_at(in, at, 16) : NULL;
  if (v == NULL)
    return in->failed ? -1
                      : ctl_in_fail(in, start, "a record's counts run past the end "
                                    "of its block (byte %llu)", (unsigned long long)end);
  n->path = *path;
  n->depth = depth;
  n->count = xr_fdr_get64(v);
  n->ticks = xr_fdr_get64(v + 8);
  *next = at + 16;
  return 0;
}

int ctl_profile_nodes(struct ctl_in *in, ctl_node_fn fn, void *ctx) {
  int32_t *path = NULL;
  size_t cap = 0;
  int rc = 0;
  for (uint64_t off = HEADER; off < in->size && rc == 0;) {
    const uint8_t *h = ctl_in_at(in, off, BLOCK_HEADER);
    if (h == NULL) {
      rc = in->failed ? -1
                      : ctl_in_fail(in, off, "a block header of 16 bytes runs past "
                                    "the end of the file (%llu bytes)",
                                    (unsigned long long)in->size);
      break;
    }
    uint32_t size = xr_fdr_get32(h);
    if (size < BLOCK_HEADER || size > in->size - off) {
      rc = ctl_in_fail(in, off, "a block of %u bytes %s", size,
                       size < BLOCK_HEADER ? "is shorter than its 16-byte header"
                                           : "runs past the end of the file");
      break;
    }
    uint64_t end = off + size;
    struct ctl_profile_node n = {.tid = xr_fdr_get64(h + 8)};
    for (uint64_t at = off + BLOCK_HEADER; at < end && rc == 0;) {
      rc = read_node(in, at, end, &path, &cap, &n, &at);
      if (rc == 0)
        fn(ctx, &n);
    }
    off = end;
  }
  free(path);
  return rc;
}
