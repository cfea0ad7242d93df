/* The state every FDR file shares (fdr_state.c): the hot configuration the
 * handlers read, the buffer queue, each thread's slot, the mode's lifecycle
 * state and the count of snapshots inside, so that the mode, the
 * controller, the snapshot and the triggers each depend on this leaf, not
 * on one another. Their types are fdr_thread.h's and buffer_queue.h's. */
#ifndef XR_FDR_STATE_H
#define XR_FDR_STATE_H

#include "core/base/common.h"
#include "core/modes/mode_lifecycle.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_thread.h"

/* Read on every event, written only by the control path. */
XR_HIDDEN extern struct xr_fdr_hot_config xr_fdr_hot;
/* The queue of the current generation (set up by fdr_mode.c). */
XR_HIDDEN extern struct xr_fdr_queue xr_fdr_queue;
/* The calling thread's state, in initial-exec TLS. */
XR_HIDDEN extern XR_TLS struct xr_fdr_thread xr_fdr_thread;

/* FDR's lifecycle (core/modes/mode_lifecycle.h): moved by fdr_mode.c only. */
XR_HIDDEN extern struct xr_lifecycle xr_fdr_lifecycle;
/* Snapshots inside (atomic): see xr_fdr_snapshot_enter. */
XR_HIDDEN extern int xr_fdr_snapshots_inside;

/* Entered around every snapshot: true when FDR is recording; while any
 * snapshot is inside, init does not unmap the old buffers. */
XR_HIDDEN bool xr_fdr_snapshot_enter(void);
XR_HIDDEN void xr_fdr_snapshot_leave(void);

#endif
