/* The call stacks of a trace writer's threads: a table of the threads
 * (open addressing on pid/tid), each with the stack of the calls it has
 * entered, and the rules the Chrome and Perfetto writers share about them:
 * - an exit ends its own call and first the calls above it on the stack,
 *   whose exits were skipped ("unwound"); an exit whose call is not on the
 *   stack is a call whose entry the trace lost ("no-entry");
 * - a stack that cannot grow counts the calls entered beyond it
 *   (`untracked`) and takes each exit there to match the latest of them;
 * - at the end of the trace the calls still on a stack are ended "open".
 *
 * A writer keeps its own data of a thread in a struct whose first member
 * is a struct xr_trace_thread, and gives the table that struct's size.
 * Memory comes from mmap only (grown by doubling): no malloc, stdio or
 * locks, so a writer may run in a signal handler (trace_event.h). */
#ifndef XR_EXPORT_TRACE_THREADS_H
#define XR_EXPORT_TRACE_THREADS_H

#include "export/trace_event.h"

/* How a call's end is marked (the writers' "cut" annotation). */
enum xr_trace_mark {
  XR_MARK_NONE,
  XR_MARK_UNWOUND,
  XR_MARK_OPEN,
  XR_MARK_NO_ENTRY
};

/* "", "unwound", "open", "no-entry": the text of each mark. */
XR_HIDDEN extern const char *const xr_trace_mark_text[4];

/* A call on a stack: its function and the time of its entry. */
struct xr_trace_frame {
  int32_t fid;
  uint64_t tsc;
};

struct xr_trace_thread {
  int32_t pid, tid;
  bool used;
  uint64_t first_tsc, last_tsc; /* the thread's first and latest times */
  struct xr_trace_frame *stack;
  size_t depth, cap;
  uint64_t untracked; /* calls entered while the stack could not grow */
};

struct xr_trace_threads {
  unsigned char *slots; /* cap records of `size` bytes */
  size_t size, cap, count;
  struct xr_trace_thread *last; /* the last found or added */
};

/* An empty table of records of `size` bytes (>= a struct xr_trace_thread,
 * which they start with). */
XR_HIDDEN void xr_trace_threads_init(struct xr_trace_threads *ts,
                                     size_t size);

/* The thread (pid, tid) in the table, NULL when it is not there. */
XR_HIDDEN struct xr_trace_thread *xr_trace_threads_search(
    struct xr_trace_threads *ts, int32_t pid, int32_t tid);

/* The same, the last thread found or added tried first: a trace's events
 * come in runs of one thread. */
static inline struct xr_trace_thread *xr_trace_threads_find(
    struct xr_trace_threads *ts, int32_t pid, int32_t tid) {
  struct xr_trace_thread *t = ts->last;
  if (XR_LIKELY(t != NULL && t->pid == pid && t->tid == tid))
    return t;
  return xr_trace_threads_search(ts, pid, tid);
}

/* Adds thread (pid, tid), not in the table, first seen at tsc: its record
 * zeroed but for the shared part. NULL when the table cannot grow. The
 * table may move: records found before are not to be used after. */
XR_HIDDEN struct xr_trace_thread *xr_trace_threads_add(
    struct xr_trace_threads *ts, int32_t pid, int32_t tid, uint64_t tsc);

/* Slot i (below ts->cap) of the table, NULL when it is empty: the threads
 * in slot order. */
XR_HIDDEN struct xr_trace_thread *xr_trace_threads_at(
    const struct xr_trace_threads *ts, size_t i);

/* Unmaps every stack and the table. */
XR_HIDDEN void xr_trace_threads_free(struct xr_trace_threads *ts);

/* Room for one more frame on t's stack; false when the stack cannot grow
 * (or could not before): the call is counted in t->untracked. */
XR_HIDDEN bool xr_trace_thread_grow(struct xr_trace_thread *t);

/* A call entered at tsc: pushed, or counted untracked (false). */
static inline bool xr_trace_thread_push(struct xr_trace_thread *t,
                                        int32_t fid, uint64_t tsc) {
  if (XR_UNLIKELY(t->depth == t->cap || t->untracked != 0) &&
      !xr_trace_thread_grow(t))
    return false;
  t->stack[t->depth++] = (struct xr_trace_frame){fid, tsc};
  return true;
}

/* What a writer does with a call that ends at tsc: f is its frame (popped
 * already; of a no-entry call, its fid and the thread's first time), NULL
 * for an untracked call, which only a writer that wrote its begin ends. */
typedef void (*xr_trace_end_fn)(void *w, struct xr_trace_thread *t,
                                const struct xr_trace_frame *f, uint64_t tsc,
                                enum xr_trace_mark mark);

/* The calls exit e ends, in the order they end, handed to end. Inline, so
 * a writer's end is called directly on its hot path. */
static inline void xr_trace_thread_exit(struct xr_trace_thread *t,
                                        const struct xr_tev *e,
                                        xr_trace_end_fn end, void *w) {
  enum xr_trace_mark own = e->unwound ? XR_MARK_UNWOUND : XR_MARK_NONE;
  if (t->untracked != 0) {
    t->untracked--; /* deeper than we could track: assume it matches */
    end(w, t, NULL, e->tsc, own);
    return;
  }
  size_t i = t->depth;
  while (i > 0 && t->stack[i - 1].fid != e->fid)
    i--;
  /* Frames above the match (all of them when there is none) were skipped. */
  while (t->depth > i) {
    t->depth--;
    end(w, t, &t->stack[t->depth], e->tsc, XR_MARK_UNWOUND);
  }
  if (i > 0) {
    t->depth--;
    end(w, t, &t->stack[t->depth], e->tsc, own);
  } else {
    struct xr_trace_frame lost = {e->fid, t->first_tsc};
    end(w, t, &lost, e->tsc, XR_MARK_NO_ENTRY);
  }
}

/* Ends t's calls still open at its latest time, the untracked ones first
 * (the deepest), each marked "open". */
XR_HIDDEN void xr_trace_thread_end_open(struct xr_trace_thread *t,
                                        xr_trace_end_fn end, void *w);

#endif
