/* The state every FDR file shares (fdr_state.c): the mode's lifecycle state
 * and the count of snapshots inside. The hot configuration, the queue and
 * the thread's slot are declared in fdr_controller.h and defined there too,
 * so that the mode, the controller, the snapshot and the triggers each
 * depend on this leaf, not on one another. */
#ifndef XR_FDR_STATE_H
#define XR_FDR_STATE_H

#include "core/modes/mode_lifecycle.h"

/* FDR's lifecycle (core/modes/mode_lifecycle.h): moved by fdr_mode.c only. */
XR_HIDDEN extern struct xr_lifecycle xr_fdr_lifecycle;
/* Snapshots inside (atomic): see xr_fdr_snapshot_enter. */
XR_HIDDEN extern int xr_fdr_snapshots_inside;

/* Entered around every snapshot: true when FDR is recording; while any
 * snapshot is inside, init does not unmap the old buffers. */
XR_HIDDEN bool xr_fdr_snapshot_enter(void);
XR_HIDDEN void xr_fdr_snapshot_leave(void);

#endif
