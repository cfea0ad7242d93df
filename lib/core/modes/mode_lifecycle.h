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
 * returns at once (a signal handler may be that caller). Only the exit
 * policy waits, bounded, for another thread's transition
 * (xr_lifecycle_wait_others), so that the process does not end in the
 * middle of it; never for the caller's own.
 *
 * Owner: the thread inside a transition is named in the state word
 * itself, by a token of its own (chosen at its first begin_*, unique in the
 * process, never reused, and kept by a fork child's thread as pthread_self
 * is): begin_*'s CAS sets state and owner in one step, end_*'s store clears
 * both in one step. So there is no instant where the state is a thread's
 * and the word does not say so, and a signal handler on that thread that
 * exits or forks anywhere in its transition finds it its own. (Before, the
 * owner was a second word stored after the CAS and cleared before the end's
 * store; a handler in between was taken for another thread: the exit
 * waited out its bound, the fork child dropped the transition.)
 *
 * Fork child (xr_lifecycle_after_fork, from each mode's fork hook): a
 * transition another thread was making stops for good, since that thread
 * does not exist in the child. The child's state becomes UNINITIALIZED,
 * whichever transition it was, and the mode drops its part-made state and
 * records nothing (docs/modes.md "Lifecycle" gives the reasons per
 * transition): init is half done and only the parent finishes it; finalize
 * and flush work on the parent's session, which the parent writes, so the
 * child must not write it again. The child may init again, with a file of
 * its own. A transition of the forking thread itself (a signal handler
 * that forks) goes on in the child, as that thread does.
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

#include "core/base/common.h"
#include "xray/xray_log_interface.h"

struct xr_lifecycle {
  /* XRayLogInitStatus, a flushing bit and the owner's token
   * (mode_lifecycle.c) */
  uint64_t word;
};
#define XR_LIFECYCLE_INITIAL {XRAY_LOG_UNINITIALIZED}

/* The transition running now, if any. */
enum xr_transition { XR_NO_TRANSITION, XR_IN_INIT, XR_IN_FINALIZE, XR_IN_FLUSH };

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

/* The transition running now; *mine: the calling thread is its owner. */
XR_HIDDEN enum xr_transition xr_lifecycle_transition(struct xr_lifecycle *lc,
                                                     bool *mine);

/* Waits while another thread is inside a transition of lc, polling every
 * millisecond (nanosleep) and taking each poll from *budget_ms. True when
 * no other thread is inside one (at once when the transition is the
 * caller's own); false when the budget ran out first. The exit path only. */
XR_HIDDEN bool xr_lifecycle_wait_others(struct xr_lifecycle *lc,
                                        unsigned *budget_ms);

/* Fork child: a transition another thread was making is dropped and the
 * state becomes UNINITIALIZED (see above); returns that transition, for the
 * mode to drop its part-made state. XR_NO_TRANSITION: nothing changed. */
XR_HIDDEN enum xr_transition xr_lifecycle_after_fork(struct xr_lifecycle *lc);

#ifdef XR_TEST_POINTS
/* Unit tests only: they compile mode_lifecycle.c again with this defined,
 * and the hook runs at each point (where a signal may land); in the library
 * there are no points. */
enum xr_lifecycle_point {
  XR_LC_BEFORE_BEGIN, /* a begin_*, before its compare-and-swap */
  XR_LC_BEGUN,        /* a begin_* that won, right after its CAS */
  XR_LC_ENDING,       /* an end_* or a fork child's drop, before its store */
};
XR_HIDDEN extern void (*xr_lifecycle_test_point)(struct xr_lifecycle *lc,
                                                 enum xr_lifecycle_point at);
#endif

#endif
