/* The modes' lifecycle state machine: states, transitions and orderings are
 * described in mode_lifecycle.h. Each transition is one compare-and-swap
 * from the only state it may leave; the end of a transient state is one
 * store, since only the thread that won the begin_* can be inside it. The
 * winner's id beside the state lets the exit policy skip its own transition
 * and a fork child tell its own from a vanished thread's. */
#include "core/mode_lifecycle.h"

#include <pthread.h>
#include <time.h>

/* Set beside FINALIZED while a flush runs (above every XRayLogInitStatus). */
#define XR_LIFECYCLE_FLUSHING 0x100
#define XR_LIFECYCLE_STATUS 0xff

/* pthread_self: a fork child's thread has its parent's value (gettid not). */
static uintptr_t self(void) { return (uintptr_t)pthread_self(); }

static bool move(struct xr_lifecycle *lc, int from, int to, int *seen) {
  *seen = from;
  bool won = __atomic_compare_exchange_n(&lc->word, seen, to, false,
                                         __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (won)
    __atomic_store_n(&lc->owner, self(), __ATOMIC_SEQ_CST);
  return won;
}

/* Ends a transition: the owner goes first, so a later winner's is kept. */
static void settle(struct xr_lifecycle *lc, int to) {
  __atomic_store_n(&lc->owner, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&lc->word, to, __ATOMIC_SEQ_CST);
}

XRayLogInitStatus xr_lifecycle_status(struct xr_lifecycle *lc) {
  return (XRayLogInitStatus)(__atomic_load_n(&lc->word, __ATOMIC_SEQ_CST) &
                             XR_LIFECYCLE_STATUS);
}

bool xr_lifecycle_begin_init(struct xr_lifecycle *lc, XRayLogInitStatus *now) {
  int seen;
  bool won = move(lc, XRAY_LOG_UNINITIALIZED, XRAY_LOG_INITIALIZING, &seen);
  *now = won ? XRAY_LOG_INITIALIZING
             : (XRayLogInitStatus)(seen & XR_LIFECYCLE_STATUS);
  return won;
}

XRayLogInitStatus xr_lifecycle_end_init(struct xr_lifecycle *lc, bool ok) {
  XRayLogInitStatus s = ok ? XRAY_LOG_INITIALIZED : XRAY_LOG_UNINITIALIZED;
  settle(lc, s);
  return s;
}

bool xr_lifecycle_begin_finalize(struct xr_lifecycle *lc,
                                 XRayLogInitStatus *now) {
  int seen;
  bool won = move(lc, XRAY_LOG_INITIALIZED, XRAY_LOG_FINALIZING, &seen);
  *now = won ? XRAY_LOG_FINALIZING
             : (XRayLogInitStatus)(seen & XR_LIFECYCLE_STATUS);
  return won;
}

XRayLogInitStatus xr_lifecycle_end_finalize(struct xr_lifecycle *lc) {
  settle(lc, XRAY_LOG_FINALIZED);
  return XRAY_LOG_FINALIZED;
}

bool xr_lifecycle_begin_flush(struct xr_lifecycle *lc) {
  int seen;
  return move(lc, XRAY_LOG_FINALIZED,
              XRAY_LOG_FINALIZED | XR_LIFECYCLE_FLUSHING, &seen);
}

XRayLogFlushStatus xr_lifecycle_end_flush(struct xr_lifecycle *lc) {
  settle(lc, XRAY_LOG_UNINITIALIZED);
  return XRAY_LOG_FLUSHED;
}

enum xr_transition xr_lifecycle_transition(struct xr_lifecycle *lc,
                                           bool *mine) {
  int w = __atomic_load_n(&lc->word, __ATOMIC_SEQ_CST);
  enum xr_transition t = w & XR_LIFECYCLE_FLUSHING       ? XR_IN_FLUSH
                         : w == XRAY_LOG_INITIALIZING ? XR_IN_INIT
                         : w == XRAY_LOG_FINALIZING   ? XR_IN_FINALIZE
                                                      : XR_NO_TRANSITION;
  *mine = t != XR_NO_TRANSITION &&
          __atomic_load_n(&lc->owner, __ATOMIC_SEQ_CST) == self();
  return t;
}

bool xr_lifecycle_wait_others(struct xr_lifecycle *lc, unsigned *budget_ms) {
  bool mine;
  while (xr_lifecycle_transition(lc, &mine) != XR_NO_TRANSITION && !mine) {
    if (*budget_ms == 0)
      return false;
    --*budget_ms;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL); /* interrupted: a shorter poll, still counted */
  }
  return true;
}

enum xr_transition xr_lifecycle_after_fork(struct xr_lifecycle *lc) {
  bool mine;
  enum xr_transition t = xr_lifecycle_transition(lc, &mine);
  if (t == XR_NO_TRANSITION || mine)
    return XR_NO_TRANSITION;
  settle(lc, XRAY_LOG_UNINITIALIZED);
  return t;
}
