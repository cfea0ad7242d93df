/* Basic mode's per-event guard: what every event of a thread does around
 * its records, the lean handlers' (basic_log_lean.c) and the argument
 * sink's (basic_args.c) alike, so that the flush's wait and the
 * re-entrancy rule are one protocol. Inline only (no .c).
 *
 * The busy flag tells a flushing thread that this thread may be touching its
 * buffer. Ordering: busy := 1 is stored before the epoch is loaded; the
 * flusher stores a stopped epoch, then runs membarrier() (or waits for store
 * buffers to drain), then waits for busy == 0. So either this thread sees
 * the stopped epoch, or the flusher sees busy == 1 and waits. */
#ifndef XR_BASIC_GUARD_H
#define XR_BASIC_GUARD_H

#include "basic/basic_thread.h"
#include "basic/basic_writer.h" /* xr_basic_epoch */
#include "core/base/common.h"
#include "core/thread/thread.h"

/* An event begins on t: false when the thread is inside a handler already
 * (a signal handler inside ours, say): the event is dropped and counted,
 * and nothing more is to be done. Else the guard and busy are set:
 * xr_basic_event_end must follow. */
static XR_ALWAYS_INLINE bool xr_basic_event_begin(struct xr_basic_thread *t) {
  if (XR_UNLIKELY(__atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED))) {
    /* Relaxed atomics (plain moves on x86) because a flusher reads the
     * counter. */
    __atomic_store_n(&t->dropped_nested,
                     __atomic_load_n(&t->dropped_nested, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    return false;
  }
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
  xr_compiler_barrier();
  return true;
}

/* Between begin and end: the recording generation now. The thread
 * records when it equals t->epoch, or once its caller's prepare path set
 * it up for it (not for an odd, stopped one). Acquire pairs with init's
 * store: the options it wrote are visible. */
static XR_ALWAYS_INLINE uint32_t xr_basic_epoch_now(void) {
  return __atomic_load_n(&xr_basic_epoch, __ATOMIC_ACQUIRE);
}

static XR_ALWAYS_INLINE void xr_basic_event_end(struct xr_basic_thread *t) {
  __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
  xr_compiler_barrier();
  __atomic_store_n(&xr_in_handler, 0, __ATOMIC_RELAXED);
}

#endif
