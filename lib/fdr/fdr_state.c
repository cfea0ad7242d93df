/* The state every FDR file shares: the hot configuration the handlers read,
 * the buffer queue, each thread's slot, the lifecycle state and the count of
 * snapshots inside. Only data and the snapshot's way in, so that the mode
 * (fdr_mode.c), the controller, the snapshot and the triggers all depend on
 * this file and none on another's globals. */
#include "core/modes/log_registry.h" /* declares xr_fdr_lifecycle weak, as core names it */
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "xray/xray_log_interface.h"

struct xr_fdr_hot_config xr_fdr_hot = {.fast_epoch = XR_FDR_NO_FAST};
struct xr_fdr_queue xr_fdr_queue;
XR_TLS struct xr_fdr_thread xr_fdr_thread;

struct xr_lifecycle xr_fdr_lifecycle = XR_LIFECYCLE_INITIAL;
int xr_fdr_snapshots_inside;

/* A snapshot counts itself in before it looks at the state, and init
 * moves the state before it looks at the count (both sequentially
 * consistent: the lifecycle's accesses all are, core/modes/mode_lifecycle.h):
 * so either init sees the snapshot and keeps the old buffers mapped, or
 * the snapshot sees that FDR is not recording and leaves. */
bool xr_fdr_snapshot_enter(void) {
  __atomic_add_fetch(&xr_fdr_snapshots_inside, 1, __ATOMIC_SEQ_CST);
  if (xr_lifecycle_status(&xr_fdr_lifecycle) == XRAY_LOG_INITIALIZED)
    return true;
  __atomic_sub_fetch(&xr_fdr_snapshots_inside, 1, __ATOMIC_SEQ_CST);
  return false;
}
void xr_fdr_snapshot_leave(void) {
  __atomic_sub_fetch(&xr_fdr_snapshots_inside, 1, __ATOMIC_SEQ_CST);
}
