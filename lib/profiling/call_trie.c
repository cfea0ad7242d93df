/* Cold side of the call trie: creation, growth, teardown, merge, walks.
 * See call_trie.h for the data structure and the hot operations. */
#include "profiling/call_trie.h"

#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || (page & (page - 1)) != 0)
    page = 4096;
  return (n + page - 1) & ~(page - 1);
}

static void *map_zeroed(size_t bytes, bool noreserve) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (noreserve ? MAP_NORESERVE : 0);
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

struct xr_trie *xr_trie_create(const struct xr_trie_config *config) {
  size_t header = page_round(sizeof(struct xr_trie));
  struct xr_trie *t = map_zeroed(header, false);
  if (t == NULL)
    return NULL;
  t->self_bytes = header;
  t->config = *config;
  t->grow = xr_trie_add_chunk;
  size_t stack_bytes = page_round(config->stack_bytes);
  uint64_t frames = stack_bytes / sizeof(struct xr_trie_frame);
  if (frames > config->max_depth)
    frames = config->max_depth;
  if (frames > UINT32_MAX)
    frames = UINT32_MAX;
  if (frames > 0) {
    stack_bytes = page_round(frames * sizeof(struct xr_trie_frame));
    t->stack = map_zeroed(stack_bytes, true);
    if (t->stack == NULL) {
      munmap(t, header);
      return NULL;
    }
  }
  t->config.stack_bytes = stack_bytes;
  t->stack_capacity = (uint32_t)frames;
  /* The first chunk is taken now so that a thread's first entries do not
   * reach the slow path; failing here is not fatal (grow_failed is set). */
  xr_trie_add_chunk(t);
  return t;
}

void xr_trie_destroy(struct xr_trie *t) {
  if (t == NULL)
    return;
  void *c = t->chunks;
  while (c != NULL) {
    void *next = *(void **)c;
    munmap(c, page_round(t->config.chunk_bytes));
    c = next;
  }
  if (t->config.global_used != NULL)
    __atomic_fetch_sub(t->config.global_used, t->chunk_bytes_total,
                       __ATOMIC_RELAXED);
  if (t->stack != NULL)
    munmap(t->stack, t->config.stack_bytes);
  munmap(t, t->self_bytes);
}

int xr_trie_add_chunk(struct xr_trie *t) {
  size_t bytes = page_round(t->config.chunk_bytes);
  if (t->grow_failed || bytes < sizeof(void *) + sizeof(struct xr_trie_node))
    goto fail;
  uint64_t *used = t->config.global_used;
  if (used != NULL && t->config.global_max_bytes != 0) {
    uint64_t before = __atomic_fetch_add(used, bytes, __ATOMIC_RELAXED);
    if (before + bytes > t->config.global_max_bytes) {
      __atomic_fetch_sub(used, bytes, __ATOMIC_RELAXED);
      goto fail;
    }
  }
  char *c = map_zeroed(bytes, false);
  if (c == NULL) {
    if (used != NULL && t->config.global_max_bytes != 0)
      __atomic_fetch_sub(used, bytes, __ATOMIC_RELAXED);
    goto fail;
  }
  if (used != NULL && t->config.global_max_bytes == 0)
    __atomic_fetch_add(used, bytes, __ATOMIC_RELAXED);
  *(void **)(void *)c = t->chunks;
  t->chunks = c;
  t->chunk_bytes_total += bytes;
  /* Nodes start after the link word, 16-byte aligned. */
  t->cursor = c + 16;
  t->limit = c + bytes;
  return 0;
fail:
  t->grow_failed = 1;
  return -1;
}

void xr_trie_close_all(struct xr_trie *t, uint64_t now) {
  while (t->depth > 0)
    xr_trie_pop(t, now);
  t->overflow = 0;
}

struct xr_trie_node *xr_trie_child(struct xr_trie *t,
                                   struct xr_trie_node *parent, int32_t fid) {
  return xr_trie_find_or_add(t, parent, fid);
}

const struct xr_trie_node *xr_trie_next(const struct xr_trie_node *n,
                                        const struct xr_trie_node *root) {
  if (n->first_child != NULL)
    return n->first_child;
  while (n != root) {
    if (n->next_sibling != NULL)
      return n->next_sibling;
    n = n->parent;
  }
  return NULL;
}

uint64_t xr_trie_local_time(const struct xr_trie_node *n) {
  uint64_t children = 0;
  for (const struct xr_trie_node *c = n->first_child; c != NULL;
       c = c->next_sibling)
    children += c->total_time;
  return n->total_time > children ? n->total_time - children : 0;
}

static void add_node(struct xr_trie_node *d, const struct xr_trie_node *s) {
  d->count += s->count;
  d->total_time += s->total_time;
  for (int b = 0; b < XR_HIST_BUCKETS; b++) {
    uint64_t sum = (uint64_t)d->hist[b] + s->hist[b];
    d->hist[b] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
  }
}

/* Walks src in pre-order and keeps `d` on the matching dst node: descending
 * finds or creates the child; moving up follows parent links on both sides.
 * Iterative, so 10 000-deep paths need no recursion. A src subtree whose dst
 * node cannot be created is skipped and counted. */
uint64_t xr_trie_merge(struct xr_trie *dst, const struct xr_trie *src) {
  uint64_t lost = 0;
  const struct xr_trie_node *root = &src->root;
  const struct xr_trie_node *s = root->first_child;
  struct xr_trie_node *dparent = &dst->root;
  while (s != NULL) {
    struct xr_trie_node *d = xr_trie_find_or_add(dst, dparent, s->fid);
    bool descend = false;
    if (d == NULL) {
      lost++;
    } else {
      add_node(d, s);
      descend = s->first_child != NULL;
    }
    if (descend) {
      dparent = d;
      s = s->first_child;
      continue;
    }
    /* next sibling, climbing while there is none */
    while (s != root && s->next_sibling == NULL) {
      s = s->parent;
      if (s != root)
        dparent = dparent->parent;
    }
    if (s == root)
      break;
    s = s->next_sibling;
  }
  dst->lost.no_memory += src->lost.no_memory;
  dst->lost.too_deep += src->lost.too_deep;
  dst->lost.unmatched_exit += src->lost.unmatched_exit;
  return lost;
}
