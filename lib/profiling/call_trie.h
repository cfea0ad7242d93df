/* Per-thread function call trie: one node per distinct call path, with the
 * path's call count, total (inclusive) time and a log-2 histogram of call
 * durations. Memory comes from mmap'd chunks; nothing here locks, allocates
 * with malloc or makes a system call except xr_trie_add_chunk (cold).
 *
 * The event operations are `static inline` in this header so that each
 * includer compiles its own copy: profiling_lean.c gets a copy built with
 * -mgeneral-regs-only (lean handlers), the unit tests and call_trie.c get
 * ordinary copies.
 *
 * Time semantics: a node's total_time is the sum of its calls' durations
 * (entry to exit, children included), as compiler-rt stores it. Local (self)
 * time is derived when reading: total minus the children's totals. */
#ifndef XR_PROFILING_CALL_TRIE_H
#define XR_PROFILING_CALL_TRIE_H

#include "core/base/call_frames.h"
#include "core/base/common.h"

/* Bucket b counts calls whose duration d (ticks) has floor(log2(d)) == b
 * (d = 0 and 1 both land in bucket 0); the last bucket takes everything
 * longer. 40 buckets reach 2^40 ticks, minutes at GHz rates. */
#define XR_HIST_BUCKETS 40

struct xr_trie_node {
  int32_t fid; /* 0 only for the sentinel root */
  uint32_t depth; /* 0 for the sentinel, 1 for a top-level function */
  struct xr_trie_node *parent;
  struct xr_trie_node *first_child;
  struct xr_trie_node *next_sibling; /* children are kept in first-call order */
  uint64_t count;                    /* completed calls on this path */
  uint64_t total_time;               /* ticks, children included */
  uint32_t hist[XR_HIST_BUCKETS];    /* durations of single calls */
};

/* One open call on the shadow stack. node is NULL when the call could not be
 * recorded (arena exhausted); the frame still exists so exits match. */
struct xr_trie_frame {
  struct xr_trie_node *node;
  int32_t fid;
  uint32_t pad;
  uint64_t entry_time;
  uintptr_t sp; /* the sled's stack pointer (core/base/call_frames.h) */
};

/* Direct-mapped cache of (parent, fid) -> child, so an entry costs one probe
 * however many children a node has. */
#define XR_TRIE_CACHE_SIZE 1024
struct xr_trie_cache_entry {
  struct xr_trie_node *parent;
  struct xr_trie_node *child;
};

/* Counters of what could not be recorded. Reported at flush. */
struct xr_trie_losses {
  uint64_t no_memory;      /* entries whose node could not be allocated */
  uint64_t too_deep;       /* entries beyond max_depth / the shadow stack */
  uint64_t unmatched_exit; /* exits with no open call of that function */
};

struct xr_trie;
typedef int (*xr_trie_grow_fn)(struct xr_trie *);

/* Configuration shared by the tries of one profiling session. */
struct xr_trie_config {
  size_t chunk_bytes;        /* node arena grows by this much (rounded to pages) */
  size_t stack_bytes;        /* shadow stack reservation */
  uint32_t max_depth;        /* deepest path recorded */
  uint64_t global_max_bytes; /* all tries' chunks together; 0 = unlimited */
  uint64_t *global_used;     /* shared counter (atomic adds), may be NULL */
};

struct xr_trie {
  struct xr_trie_node root; /* sentinel: its children are the top-level calls */
  /* node arena: bump pointer in the current chunk */
  char *cursor;
  char *limit;
  void *chunks; /* list of chunks (first word of each is the next) */
  uint64_t chunk_bytes_total;
  xr_trie_grow_fn grow; /* adds a chunk; 0 or -1. Called on the hot path's
                           slow branch, so lean callers pass a wrapper. */
  /* shadow stack */
  struct xr_trie_frame *stack;
  uint32_t depth;
  uint32_t stack_capacity; /* min(stack_bytes / frame, max_depth) */
  uint32_t overflow;       /* open calls not on the stack (too deep) */
  uint32_t gen;            /* profiling session that owns it */
  int32_t tid;
  uint32_t grow_failed; /* set once growing failed: no more attempts */
  struct xr_trie_losses lost;
  struct xr_trie_config config;
  struct xr_trie *next_posted; /* collector's list */
  size_t self_bytes;           /* size of this header mapping */
  struct xr_trie_cache_entry cache[XR_TRIE_CACHE_SIZE];
};

/* --- cold API (call_trie.c) ---------------------------------------------- */

/* Creates an empty trie (header, shadow stack and first chunk from mmap).
 * Returns NULL when memory is not available. */
XR_HIDDEN struct xr_trie *xr_trie_create(const struct xr_trie_config *config);
/* Unmaps everything the trie owns. NULL is fine. */
XR_HIDDEN void xr_trie_destroy(struct xr_trie *t);
/* Adds one chunk to the node arena (mmap). Respects the global budget.
 * Returns 0, or -1 (and sets grow_failed) when no memory may be taken. */
XR_HIDDEN int xr_trie_add_chunk(struct xr_trie *t);
/* Closes every open call at time `now` (thread exit, finalize). */
XR_HIDDEN void xr_trie_close_all(struct xr_trie *t, uint64_t now);
/* Adds src's counts, times and histograms into dst, path by path. Returns the
 * number of src nodes that could not be merged (dst out of memory). */
XR_HIDDEN uint64_t xr_trie_merge(struct xr_trie *dst, const struct xr_trie *src);
/* Finds or creates the child of parent for fid (cold helper for merge and
 * tests). NULL when out of memory. */
XR_HIDDEN struct xr_trie_node *xr_trie_child(struct xr_trie *t,
                                             struct xr_trie_node *parent,
                                             int32_t fid);
/* Pre-order walk helper: next node after n below root, or NULL. */
XR_HIDDEN const struct xr_trie_node *
xr_trie_next(const struct xr_trie_node *n, const struct xr_trie_node *root);
/* Local time of a node: total minus its children's totals (never negative). */
XR_HIDDEN uint64_t xr_trie_local_time(const struct xr_trie_node *n);

/* --- hot operations (inline, lean-safe: no libc, no vector code) --------- */

static XR_ALWAYS_INLINE uint32_t xr_hist_bucket(uint64_t duration) {
  uint32_t b = 63u - (uint32_t)__builtin_clzll(duration | 1);
  return b < XR_HIST_BUCKETS ? b : XR_HIST_BUCKETS - 1;
}

static XR_ALWAYS_INLINE void xr_trie_record_call(struct xr_trie_node *n,
                                                 uint64_t duration) {
  uint32_t *h = &n->hist[xr_hist_bucket(duration)];
  n->count++;
  n->total_time += duration;
  *h += (*h != UINT32_MAX); /* saturate rather than wrap */
}

static XR_ALWAYS_INLINE size_t xr_trie_cache_slot(const struct xr_trie_node *p,
                                                  int32_t fid) {
  uintptr_t k = ((uintptr_t)p >> 4) ^ ((uint32_t)fid * 0x9E3779B1u);
  return (k ^ (k >> 10)) & (XR_TRIE_CACHE_SIZE - 1);
}

/* Allocates a zeroed node (fresh mmap pages are zero and never reused within
 * a trie, so no clearing is needed). NULL when out of memory. */
static inline __attribute__((unused)) struct xr_trie_node *
xr_trie_alloc_node(struct xr_trie *t) {
  for (;;) {
    if (XR_LIKELY(t->limit - t->cursor >= (ptrdiff_t)sizeof(struct xr_trie_node))) {
      struct xr_trie_node *n = (struct xr_trie_node *)(void *)t->cursor;
      t->cursor += sizeof(struct xr_trie_node);
      return n;
    }
    if (t->grow_failed || t->grow(t) != 0)
      return NULL;
  }
}

/* Child of parent with this fid, created (appended last) if missing. */
static inline __attribute__((unused)) struct xr_trie_node *
xr_trie_find_or_add(struct xr_trie *t, struct xr_trie_node *parent, int32_t fid) {
  struct xr_trie_cache_entry *c = &t->cache[xr_trie_cache_slot(parent, fid)];
  if (XR_LIKELY(c->parent == parent && c->child->fid == fid))
    return c->child;
  struct xr_trie_node *n = parent->first_child, *last = NULL;
  while (n != NULL && n->fid != fid) {
    last = n;
    n = n->next_sibling;
  }
  if (n == NULL) {
    n = xr_trie_alloc_node(t);
    if (n == NULL)
      return NULL;
    n->fid = fid;
    n->depth = parent->depth + 1;
    n->parent = parent;
    if (last != NULL)
      last->next_sibling = n;
    else
      parent->first_child = n;
  }
  c->parent = parent;
  c->child = n;
  return n;
}

/* Pops the top frame, attributing its call up to `now`. */
static XR_ALWAYS_INLINE void xr_trie_pop(struct xr_trie *t, uint64_t now) {
  struct xr_trie_frame *f = &t->stack[--t->depth];
  if (f->node != NULL)
    xr_trie_record_call(f->node, now - f->entry_time);
}

/* Closes the calls the program left without their exit event (longjmp,
 * exceptions, noreturn calls): the open frames on top that are gone at sp
 * (core/base/call_frames.h; `at_exit`: an exit's rule), each given its time
 * up to now. Unrecorded frames deeper than the stack go with the deepest
 * recorded one. */
static XR_NOINLINE __attribute__((unused)) void
xr_trie_drop_abandoned(struct xr_trie *t, uintptr_t sp, bool at_exit, uint64_t now) {
  while (t->depth > 0) {
    uintptr_t top = t->stack[t->depth - 1].sp;
    if (!xr_frame_gone(top, sp, at_exit))
      break;
    xr_trie_pop(t, now);
    t->overflow = 0; /* deeper, unrecorded frames are gone too */
  }
}

/* Entry of fid at `now` at the sled's stack pointer sp.
 * Budget: two compares, one cache probe, two stores of the frame. */
static inline __attribute__((unused)) void
xr_trie_enter(struct xr_trie *t, int32_t fid, uint64_t now, uintptr_t sp) {
  uint32_t d = t->depth;
  if (XR_UNLIKELY(d > 0 && t->stack[d - 1].sp <= sp)) {
    xr_trie_drop_abandoned(t, sp, false, now);
    d = t->depth;
  }
  if (XR_UNLIKELY(d >= t->stack_capacity || t->overflow != 0)) {
    t->overflow++;
    t->lost.too_deep++;
    return;
  }
  struct xr_trie_node *parent = d > 0 ? t->stack[d - 1].node : &t->root;
  struct xr_trie_node *n = NULL;
  if (XR_LIKELY(parent != NULL))
    n = xr_trie_find_or_add(t, parent, fid);
  if (XR_UNLIKELY(n == NULL))
    t->lost.no_memory++;
  struct xr_trie_frame *f = &t->stack[d];
  f->node = n;
  f->fid = fid;
  f->entry_time = now;
  f->sp = sp;
  t->depth = d + 1;
}

/* Exit of fid at sp that is not the top frame's: first the frames left
 * above its own; then its frame is on top (popped), or the exit came from
 * another stack (beyond the window: popped to the nearest open frame of
 * fid, the skipped frames given their time up to now), or its call is not
 * open (counted, ignored). */
static XR_NOINLINE __attribute__((unused)) void
xr_trie_exit_unmatched(struct xr_trie *t, int32_t fid, uint64_t now, uintptr_t sp) {
  if (t->depth > 0)
    xr_trie_drop_abandoned(t, sp, true, now);
  if (t->overflow != 0) {
    t->overflow--; /* deeper than recorded: assumed to match */
    return;
  }
  uint32_t i = t->depth;
  if (i > 0 && t->stack[i - 1].sp == sp && t->stack[i - 1].fid == fid) {
    xr_trie_pop(t, now);
    return;
  }
  if (i > 0 && t->stack[i - 1].sp < sp)
    while (i > 0 && t->stack[i - 1].fid != fid)
      i--;
  else
    i = 0;
  if (i == 0) {
    t->lost.unmatched_exit++;
    return;
  }
  while (t->depth >= i)
    xr_trie_pop(t, now);
}

/* Exit or tail exit of fid at `now` at the sled's stack pointer sp.
 * Budget: two compares, three adds. */
static inline __attribute__((unused)) void
xr_trie_exit(struct xr_trie *t, int32_t fid, uint64_t now, uintptr_t sp) {
  uint32_t d = t->depth;
  if (XR_LIKELY(t->overflow == 0 && d > 0 && t->stack[d - 1].sp == sp &&
                t->stack[d - 1].fid == fid)) {
    xr_trie_pop(t, now);
    return;
  }
  xr_trie_exit_unmatched(t, fid, now, sp);
}

/* The stack pointer an event without one stands for (a caller that cannot
 * pass it, core/dispatch/handlers.h), so that the rules above do what they
 * did by function id: an entry nests in the top frame, an exit is the
 * newest open call of its function (or, not open, below everything). */
static inline __attribute__((unused)) uintptr_t
xr_trie_implied_sp(const struct xr_trie *t, int32_t fid, bool exit) {
  uint32_t d = t->depth;
  if (t->overflow != 0)
    return d == 0 ? UINTPTR_MAX : t->stack[d - 1].sp - 1; /* deeper: nests */
  if (!exit)
    return d == 0 ? UINTPTR_MAX : t->stack[d - 1].sp - 1;
  for (uint32_t i = d; i > 0; i--)
    if (t->stack[i - 1].fid == fid)
      return t->stack[i - 1].sp;
  return 0;
}

#endif
