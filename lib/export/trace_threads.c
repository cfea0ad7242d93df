/* The call stacks of a trace writer's threads. See trace_threads.h. */
#include "export/trace_threads.h"
#include "core/base/mmap_array.h"

#include <string.h>
#include <sys/mman.h>

const char *const xr_trace_mark_text[4] = {"", "unwound", "open",
                                           "no-entry"};

void xr_trace_threads_init(struct xr_trace_threads *ts, size_t size) {
  *ts = (struct xr_trace_threads){.size = size};
}

static size_t slot_of(size_t cap, int32_t pid, int32_t tid) {
  uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) *
               0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (cap - 1);
}

static struct xr_trace_thread *slot(const struct xr_trace_threads *ts,
                                    unsigned char *slots, size_t s) {
  return (struct xr_trace_thread *)(slots + s * ts->size);
}

/* The first free slot of (pid, tid) in a table of cap slots. */
static struct xr_trace_thread *free_slot(const struct xr_trace_threads *ts,
                                         unsigned char *slots, size_t cap,
                                         int32_t pid, int32_t tid) {
  size_t s = slot_of(cap, pid, tid);
  while (slot(ts, slots, s)->used)
    s = (s + 1) & (cap - 1);
  return slot(ts, slots, s);
}

static bool grow(struct xr_trace_threads *ts) {
  size_t cap = ts->cap ? ts->cap * 2 : 64;
  void *p = mmap(NULL, cap * ts->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return false;
  unsigned char *fresh = p;
  for (size_t i = 0; i < ts->cap; i++) {
    struct xr_trace_thread *t = slot(ts, ts->slots, i);
    if (t->used)
      memcpy(free_slot(ts, fresh, cap, t->pid, t->tid), t, ts->size);
  }
  if (ts->slots != NULL)
    munmap(ts->slots, ts->cap * ts->size);
  ts->slots = fresh;
  ts->cap = cap;
  ts->last = NULL; /* it pointed into the old table */
  return true;
}

struct xr_trace_thread *xr_trace_threads_search(struct xr_trace_threads *ts,
                                                int32_t pid, int32_t tid) {
  if (ts->cap == 0)
    return NULL;
  for (size_t s = slot_of(ts->cap, pid, tid);; s = (s + 1) & (ts->cap - 1)) {
    struct xr_trace_thread *t = slot(ts, ts->slots, s);
    if (!t->used)
      return NULL;
    if (t->pid == pid && t->tid == tid)
      return ts->last = t;
  }
}

struct xr_trace_thread *xr_trace_threads_add(struct xr_trace_threads *ts,
                                             int32_t pid, int32_t tid,
                                             uint64_t tsc) {
  if ((ts->count + 1) * 4 > ts->cap * 3 && !grow(ts))
    return NULL;
  struct xr_trace_thread *t = free_slot(ts, ts->slots, ts->cap, pid, tid);
  memset(t, 0, ts->size);
  t->used = true;
  t->pid = pid;
  t->tid = tid;
  t->first_tsc = t->last_tsc = tsc;
  ts->count++;
  return ts->last = t;
}

struct xr_trace_thread *xr_trace_threads_at(const struct xr_trace_threads *ts,
                                            size_t i) {
  struct xr_trace_thread *t = slot(ts, ts->slots, i);
  return t->used ? t : NULL;
}

void xr_trace_threads_free(struct xr_trace_threads *ts) {
  for (size_t i = 0; i < ts->cap; i++) {
    struct xr_trace_thread *t = xr_trace_threads_at(ts, i);
    if (t != NULL && t->stack != NULL)
      munmap(t->stack, t->cap * sizeof *t->stack);
  }
  if (ts->slots != NULL)
    munmap(ts->slots, ts->cap * ts->size);
  *ts = (struct xr_trace_threads){.size = ts->size};
}

bool xr_trace_thread_grow(struct xr_trace_thread *t) {
  if (t->untracked == 0 && t->depth == t->cap) {
    struct xr_trace_frame *s =
        xr_mmap_array_grow(t->stack, &t->cap, t->depth, sizeof *s, 256);
    if (s != NULL) {
      t->stack = s;
      return true;
    }
  } else if (t->untracked == 0) {
    return true; /* room already */
  }
  t->untracked++;
  return false;
}

void xr_trace_thread_end_open(struct xr_trace_thread *t, xr_trace_end_fn end,
                              void *w) {
  for (; t->untracked != 0; t->untracked--)
    end(w, t, NULL, t->last_tsc, XR_MARK_OPEN);
  while (t->depth > 0) {
    t->depth--;
    end(w, t, &t->stack[t->depth], t->last_tsc, XR_MARK_OPEN);
  }
}
