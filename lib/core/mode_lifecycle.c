/* The modes' lifecycle state machine: states, transitions and orderings are
 * described in mode_lifecycle.h. Each transition is one compare-and-swap
 * from the only state it may leave; the end of a transient state is one
 * store, since only the thread that won the begin_* can be inside it. */
#include "core/mode_lifecycle.h"

/* Set beside FINALIZED while a flush runs (above every XRayLogInitStatus). */
#define XR_LIFECYCLE_FLUSHING 0x100
#define XR_LIFECYCLE_STATUS 0xff

static bool move(struct xr_lifecycle *lc, int from, int to, int *seen) {
  *seen = from;
  return __atomic_compare_exchange_n(&lc->word, seen, to, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
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
  __atomic_store_n(&lc->word, s, __ATOMIC_SEQ_CST);
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
  __atomic_store_n(&lc->word, XRAY_LOG_FINALIZED, __ATOMIC_SEQ_CST);
  return XRAY_LOG_FINALIZED;
}

bool xr_lifecycle_begin_flush(struct xr_lifecycle *lc) {
  int seen;
  return move(lc, XRAY_LOG_FINALIZED,
              XRAY_LOG_FINALIZED | XR_LIFECYCLE_FLUSHING, &seen);
}

XRayLogFlushStatus xr_lifecycle_end_flush(struct xr_lifecycle *lc) {
  __atomic_store_n(&lc->word, XRAY_LOG_UNINITIALIZED, __ATOMIC_SEQ_CST);
  return XRAY_LOG_FLUSHED;
}
