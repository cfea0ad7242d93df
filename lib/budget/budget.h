/* The overhead budget's controller (budget.c): the `xray-budget` thread
 * and its schedule, each evaluation (a sampling window, the policy, the
 * culling steps), starting and stopping, fork and exit. The public API
 * (budget_api.c) and the control socket reach it through these. */
#ifndef XR_BUDGET_H
#define XR_BUDGET_H

#include "core/base/common.h"
#include "xray/xray_budget.h"

/* The schedule: the first window XR_BUDGET_INTERVAL_MIN_NS after the start, then one every
 * XR_BUDGET_INTERVAL_MIN_NS while evaluations change something (a cull,
 * a readmission, an object that came or went), the interval doubling up
 * to XR_BUDGET_INTERVAL_MAX_NS while they do not; each window is
 * XR_BUDGET_WINDOW_NS long (budget_evaluate.h). */
#define XR_BUDGET_INTERVAL_MIN_NS 10000000ull
#define XR_BUDGET_INTERVAL_MAX_NS 200000000ull

/* Sets the budget (percent 0 .. 100, checked by the caller; 0: off, and
 * every culled function is patched again before it returns, waiting at
 * most a few seconds for a busy patcher), starting the thread when it is
 * not running. Returns XRAY_BUDGET_OK or XRAY_BUDGET_NO_THREAD. */
XR_HIDDEN int xr_budget_set(double percent);

/* Replaces the keep patterns (at most XR_BUDGET_KEEP_MAX - 1 bytes,
 * checked by the caller; "" none). */
#define XR_BUDGET_KEEP_MAX 4096
XR_HIDDEN void xr_budget_set_keep(const char *patterns);

/* The budget as it stands. */
XR_HIDDEN void xr_budget_get_status(struct XRayBudgetStatus *out);

/* True once the budget's thread has run in this process (or in the parent
 * it was forked from): the logs then get their `<log>.culled`. */
XR_HIDDEN bool xr_budget_ever_ran(void);

/* Seconds since the first instrumentation map, for `<log>.culled`. */
XR_HIDDEN double xr_budget_seconds_since_start(uint64_t monotonic_ns);

#endif
