/* FDR slow-call trigger (fdr_slow_call.c): its set-up, and the slow path
 * of the watch handlers (fdr_controller_lean.c). */
#ifndef XR_FDR_SLOW_CALL_H
#define XR_FDR_SLOW_CALL_H

#include "fdr/fdr_triggers.h"

/* Slow-call trigger (fdr_slow_call.c): builds the watched set from
 * snapshot_function (an id, or a name pattern through the name table) and
 * publishes it in xr_fdr_hot; 0, or -1 after a message. Nothing when
 * slow_us is 0. */
XR_HIDDEN int xr_fdr_slow_call_prepare(const struct fdr_trigger_options *o,
                                       const char *function);

/* Slow path of the watch handlers, called with vectors preserved: arg is a
 * struct xr_fdr_watch_event. */
struct xr_fdr_watch_event {
  int32_t id;
  unsigned type; /* ENTRY, EXIT or TAIL */
};
XR_HIDDEN void xr_fdr_watch_slow(void *event);

#endif
