/* The one init / finalize / flush state machine of the built-in modes
 * (basic, FDR, profiling: each keeps one struct xr_lifecycle). A mode calls
 * begin_* before a transition's work and end_* after it; the state word
 * alone decides who may do the work, so no lock is held while a mode
 * initialises, finalizes or writes its files.
 *
 * States (XRayLogInitStatus, compiler-rt's values), transient ones in []:
 *
 *   UNINITIALIZED -begin_init-> [INITIALIZING] -end_init(ok)-> INITIALIZED
 *                                      \-end_init(!ok)-> UNINITIALIZED
 *   INITIALIZED -begin_finalize-> [FINALIZING] -end_finalize-> FINALIZED
 *   FINALIZED -begin_flush-> [FINALIZED, flushing] -end_flush-> UNINITIALIZED
 *
 * While a flush runs the status stays FINALIZED (XRayLogInitStatus has no
 * flushing value, and the modes' buffer iterators keep answering while their
 * flush walks them); a flag bit in the word keeps a second flush out.
 *
 * A call in the wrong state changes nothing:
 *   begin_init      false, *now = the status (INITIALIZING, INITIALIZED,
 *                   FINALIZING or FINALIZED: FINALIZED also while flushing);
 *                   the mode's init returns *now, as compiler-rt's modes do
 *   begin_finalize  false, *now = the status (UNINITIALIZED, INITIALIZING,
 *                   FINALIZING or FINALIZED); the mode returns *now
 *   begin_flush     false: the mode returns XRAY_LOG_NOT_FLUSHING, whether
 *                   it was never finalized or another flush is running
 * A second caller never waits for the first: it is told the state and
 * returns at once (a signal handler or the exit policy may be that caller).
 *
 * Memory ordering: every access to the word is sequentially consistent.
 *  - Acquire and release for the modes' data: a begin_* that succeeds sees
 *    everything the previous end_* published (init sees what the last flush
 *    left), and a reader whose xr_lifecycle_status sees INITIALIZED or
 *    FINALIZED sees what init or finalize wrote before their end_* (FDR's and
 *    profiling's buffer iterators read the finalized buffers so).
 *  - One total order with the modes' other seq_cst accesses: FDR's snapshot
 *    counts itself in, then reads the status; init's begin_init moves the
 *    state, then reads the count (fdr_state.c). Both are seq_cst, so either
 *    the snapshot sees INITIALIZING (and leaves) or init sees the count (and
 *    keeps the old buffers mapped); acquire/release alone would allow both to
 *    miss. These are cold paths: the ordering costs nothing per event. */
#ifndef XR_CORE_MODE_LIFECYCLE_H
#define XR_CORE_MODE_LIFECYCLE_H

#include "core/common.h"
#include "xray/xray_log_interface.h"

struct xr_lifecycle {
  int word; /* XRayLogInitStatus, with a flushing bit (mode_lifecycle.c) */
};
#define XR_LIFECYCLE_INITIAL {XRAY_LOG_UNINITIALIZED}

/* The status, for the mode's readers (iterators, fork hooks, snapshots). */
XR_HIDDEN XRayLogInitStatus xr_lifecycle_status(struct xr_lifecycle *lc);

/* UNINITIALIZED -> INITIALIZING. */
XR_HIDDEN bool xr_lifecycle_begin_init(struct xr_lifecycle *lc,
                                       XRayLogInitStatus *now);
/* INITIALIZING -> INITIALIZED (ok) or UNINITIALIZED; returns the new status,
 * which is what the mode's init returns. */
XR_HIDDEN XRayLogInitStatus xr_lifecycle_end_init(struct xr_lifecycle *lc,
                                                  bool ok);

/* INITIALIZED -> FINALIZING. */
XR_HIDDEN bool xr_lifecycle_begin_finalize(struct xr_lifecycle *lc,
                                           XRayLogInitStatus *now);
/* FINALIZING -> FINALIZED; returns XRAY_LOG_FINALIZED. */
XR_HIDDEN XRayLogInitStatus xr_lifecycle_end_finalize(struct xr_lifecycle *lc);

/* FINALIZED -> FINALIZED and flushing. */
XR_HIDDEN bool xr_lifecycle_begin_flush(struct xr_lifecycle *lc);
/* Flushing -> UNINITIALIZED; returns XRAY_LOG_FLUSHED. */
XR_HIDDEN XRayLogFlushStatus xr_lifecycle_end_flush(struct xr_lifecycle *lc);

#endif
