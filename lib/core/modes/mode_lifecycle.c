/* The modes' lifecycle state machine: states, transitions and orderings are
 * described in mode_lifecycle.h. Each transition is one compare-and-swap
 * from the only state it may leave; the end of a transient state is one
 * store, since only the thread that won the begin_* can be inside it. The
 * winner's token rides in the same word as the state, so the state and its
 * owner change together: the exit policy skips its own transition and a
 * fork child tells its own from a vanished thread's at every instant. */
#include "core/modes/mode_lifecycle.h"
#include "core/base/test_points.h"

#include <time.h>

/* The word: the status in the low byte, the flushing bit above it, and the
 * owner's token from bit 16 up (0 in a settled state). */
#define XR_LIFECYCLE_FLUSHING 0x100
#define XR_LIFECYCLE_STATUS 0xff
#define XR_LIFECYCLE_STATE 0xffff
#define XR_LIFECYCLE_OWNER_SHIFT 16

/* This thread's token, shifted into place; 0 until its first begin_*. A
 * fork child's thread keeps its parent thread's (a copy of its TLS). */
static XR_TLS uint64_t my_token;
static uint64_t last_token; /* tokens given out; 2^48 before one repeats */

#ifdef XR_TEST_POINTS
void (*xr_lifecycle_test_point)(struct xr_lifecycle *lc,
                                enum xr_lifecycle_point at);
#endif

/* Chosen before the CAS that publishes it, so no instant exists where the
 * state is this thread's and the word does not say so. A signal handler on
 * this thread may choose one between the load and the CAS: the first kept
 * wins, so a transition the handler began keeps its owner. Async-signal-safe
 * (initial-exec TLS, lock-free atomics). */
static uint64_t token(void) {
  uint64_t t = __atomic_load_n(&my_token, __ATOMIC_RELAXED);
  if (t != 0)
    return t;
  uint64_t fresh = __atomic_add_fetch(&last_token, 1, __ATOMIC_RELAXED)
                   << XR_LIFECYCLE_OWNER_SHIFT;
  if (__atomic_compare_exchange_n(&my_token, &t, fresh, false,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return fresh;
  return t; /* the handler's */
}

/* from: a settled state (no owner). */
static bool move(struct xr_lifecycle *lc, uint64_t from, uint64_t to,
                 uint64_t *seen) {
  *seen = from;
  to |= token();
  XR_TEST_POINT(xr_lifecycle_test_point, (lc, XR_LC_BEFORE_BEGIN));
  bool won = __atomic_compare_exchange_n(&lc->word, seen, to, false,
                                         __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (won)
    XR_TEST_POINT(xr_lifecycle_test_point, (lc, XR_LC_BEGUN));
  return won;
}

/* Ends a transition: state and owner in one store. */
static void settle(struct xr_lifecycle *lc, uint64_t to) {
  XR_TEST_POINT(xr_lifecycle_test_point, (lc, XR_LC_ENDING));
  __atomic_store_n(&lc->word, to, __ATOMIC_SEQ_CST);
}

XRayLogInitStatus xr_lifecycle_status(struct xr_lifecycle *lc) {
  return (XRayLogInitStatus)(__atomic_load_n(&lc->word, __ATOMIC_SEQ_CST) &
                             XR_LIFECYCLE_STATUS);
}

bool xr_lifecycle_begin_init(struct xr_lifecycle *lc, XRayLogInitStatus *now) {
  uint64_t seen;
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
  uint64_t seen;
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
  uint64_t seen;
  return move(lc, XRAY_LOG_FINALIZED,
              XRAY_LOG_FINALIZED | XR_LIFECYCLE_FLUSHING, &seen);
}

XRayLogFlushStatus xr_lifecycle_end_flush(struct xr_lifecycle *lc) {
  settle(lc, XRAY_LOG_UNINITIALIZED);
  return XRAY_LOG_FLUSHED;
}

enum xr_transition xr_lifecycle_transition(struct xr_lifecycle *lc,
                                           bool *mine) {
  uint64_t w = __atomic_load_n(&lc->word, __ATOMIC_SEQ_CST);
  uint64_t state = w & XR_LIFECYCLE_STATE;
  enum xr_transition t = state & XR_LIFECYCLE_FLUSHING       ? XR_IN_FLUSH
                         : state == XRAY_LOG_INITIALIZING ? XR_IN_INIT
                         : state == XRAY_LOG_FINALIZING   ? XR_IN_FINALIZE
                                                          : XR_NO_TRANSITION;
  /* A thread that never began one has token 0, which no transition has. */
  *mine = t != XR_NO_TRANSITION &&
          (w & ~(uint64_t)XR_LIFECYCLE_STATE) ==
              __atomic_load_n(&my_token, __ATOMIC_RELAXED);
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
