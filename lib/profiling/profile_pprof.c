/* The pprof view of a (merged) call trie: one sample per trie node with its
 * calls and local time, one function and location per function id, written
 * through the streaming writer in lib/export/. Memory: 4 bytes per node
 * (the sorted function ids) and one location id per level of the deepest
 * path. */
#include "profiling/profile_pprof.h"
#include "export/pprof.h"

#include <stdlib.h>
#include <sys/mman.h>

static void text_put(void *ctx, const void *data, size_t n) {
  xr_text_put(ctx, data, n);
}

static uint64_t location_id(int32_t fid) { return (uint32_t)fid; }

/* The objects seen so far: a mapping is written when the first function
 * in it is, and found again by range. */
#define MAX_MAPPINGS 256
struct mappings {
  size_t count;
  struct {
    uint64_t start, limit, id;
  } range[MAX_MAPPINGS];
};

static uint64_t mapping_id(struct xr_pprof *w, struct mappings *seen,
                           const struct xr_pprof_view_info *info,
                           uint64_t addr) {
  if (addr == 0 || info->mapping_of == NULL)
    return 0;
  for (size_t i = 0; i < seen->count; i++)
    if (addr >= seen->range[i].start && addr < seen->range[i].limit)
      return seen->range[i].id;
  static struct xr_pprof_mapping_text text; /* cold, single caller */
  struct xr_pprof_mapping m = {.id = seen->count + 1};
  if (seen->count == MAX_MAPPINGS || info->mapping_of(addr, &m, &text) != 0)
    return 0;
  m.id = seen->count + 1;
  xr_pprof_mapping(w, &m);
  seen->range[seen->count].start = m.memory_start;
  seen->range[seen->count].limit = m.memory_limit;
  seen->range[seen->count].id = m.id;
  seen->count++;
  return m.id;
}

static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int xr_pprof_view_write(const struct xr_trie *t,
                        const struct xr_pprof_view_info *info, xr_name_fn name,
                        void *name_ctx, xr_to_ns_fn to_ns,
                        struct xr_text_out *out) {
  uint32_t depth = 0;
  size_t nodes = 0;
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root)) {
    if (n->depth > depth)
      depth = n->depth;
    nodes++;
  }
  /* path[depth - k]: location of the walk path's node at depth k, so a
   * node's path is leaf first in place; fids: the distinct function ids */
  size_t path_bytes = ((size_t)depth + 1) * sizeof(uint64_t);
  size_t bytes = path_bytes + (nodes + 1) * sizeof(uint32_t);
  uint8_t *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return -1;
  uint64_t *path = (uint64_t *)(void *)mem;
  uint32_t *fids = (uint32_t *)(void *)(mem + path_bytes);
  size_t nfids = 0;
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root))
    fids[nfids++] = (uint32_t)n->fid;
  qsort(fids, nfids, sizeof(uint32_t), by_value);

  struct xr_pprof w;
  if (xr_pprof_begin(&w, text_put, out, depth, &info->profile) != 0) {
    munmap(mem, bytes);
    return -1;
  }
  static struct mappings seen; /* 6 KiB: not on the stack */
  seen.count = 0;
  for (size_t i = 0; i < nfids; i++) {
    if (i > 0 && fids[i] == fids[i - 1])
      continue;
    int32_t fid = (int32_t)fids[i];
    uint64_t addr = info->address_of != NULL ? info->address_of(fid) : 0;
    const char *system_name =
        info->system_name_of != NULL ? info->system_name_of(fid) : NULL;
    xr_pprof_function(&w, location_id(fid), name(name_ctx, fid), system_name,
                      addr, mapping_id(&w, &seen, info, addr));
  }
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root)) {
    uint64_t *leaf = &path[depth - n->depth];
    *leaf = location_id(n->fid);
    uint64_t ns = to_ns(xr_trie_local_time(n));
    if (n->count != 0 || ns != 0)
      xr_pprof_sample(&w, leaf, n->depth, n->count, ns);
  }
  int rc = xr_pprof_end(&w);
  munmap(mem, bytes);
  return xr_text_flush(out) != 0 ? -1 : rc;
}
