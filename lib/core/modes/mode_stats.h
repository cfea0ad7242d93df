/* Read-only counters of the running built-in mode, for `xrayctl status`
 * (docs/control.md says what each mode's "recorded" and "dropped" mean).
 * Each is defined by a file the mode always links (weak here, as the modes'
 * impls are in log_registry.h: NULL when the mode is not linked). Called
 * from the control thread: race-free reads only (a lock the mode already
 * takes on its cold path, or relaxed loads of atomics), nothing added to
 * the per-event path. A value the mode cannot know is left unknown. */
#ifndef XR_MODE_STATS_H
#define XR_MODE_STATS_H

#include "core/base/common.h"

struct xr_mode_stats {
  bool recorded_known, dropped_known;
  uint64_t recorded, dropped;
};

XR_HIDDEN void xr_basic_stats(struct xr_mode_stats *out) __attribute__((weak));
XR_HIDDEN void xr_fdr_stats(struct xr_mode_stats *out) __attribute__((weak));
XR_HIDDEN void xr_profiling_stats(struct xr_mode_stats *out) __attribute__((weak));

#endif
