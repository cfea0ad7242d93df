/* FDR controller slow paths (fdr_controller_slow.c): what the lean handlers
 * call through xr_call_preserving_vectors, and the thread hooks fdr_mode.c
 * registers. */
#ifndef XR_FDR_CONTROLLER_SLOW_H
#define XR_FDR_CONTROLLER_SLOW_H

#include "core/base/common.h"
#include "fdr/fdr_thread.h"

/* Called with vectors preserved; arg is a struct xr_fdr_prepare_args. */
struct xr_fdr_prepare_args {
  struct xr_fdr_thread *thread;
  uint64_t tsc;   /* timestamp of the event being written */
  size_t need;    /* bytes the event needs, metadata included */
  bool ok;        /* out: a buffer with `need` bytes is ready, busy set */
};
/* Claims a writer slot, joins the current generation, switches to a fresh
 * buffer when the held one lacks `need` bytes; drops (and counts) when none
 * is free. On success leaves the writer busy. */
XR_HIDDEN void xr_fdr_prepare_slow(void *prepare_args);
/* Counts an event dropped for a reason other than a missing buffer (an
 * oversized or empty payload); arg is the thread state. */
XR_HIDDEN void xr_fdr_count_drop_slow(void *thread);

/* Thread exit hook (registered by fdr_mode.c): gives the held buffer back
 * and frees the writer slot. */
XR_HIDDEN void xr_fdr_thread_exit(void);
/* In a fork child: frees every other thread's slot and forgets the held
 * buffer (the caller resets the queue and changes the epoch). */
XR_HIDDEN void xr_fdr_thread_forget_after_fork(void);
/* Finds the rseq cpu_id field of the calling thread (rseq_cpu_offset) and
 * chooses cpu_source; after xr_clock_init. */
XR_HIDDEN void xr_fdr_detect_rseq(void);

#endif
