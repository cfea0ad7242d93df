/* What core and the modes ask of the overhead budget (lib/budget), which
 * sits above them: each function is defined by lib/budget (weak here, as
 * mode_stats.h's are: NULL when the budget is not linked), so core and the
 * modes call up without using the budget's files. Cold path only: nothing
 * of the budget runs per event. */
#ifndef XR_BUDGET_HOOKS_H
#define XR_BUDGET_HOOKS_H

#include "core/base/common.h"

/* At the first instrumentation map (core/start/start.c), once the mode
 * XRAY_OPTIONS names is started: starts the budget when xray_budget asks
 * for one (a bad value is said, and the budget stays off). Idempotent. */
XR_HIDDEN void xr_budget_first_map(void) __attribute__((weak));

/* The exit policy's first step (core/modes/log_registry.c), before the
 * modes write their files: the budget stops culling, so the files and
 * `<log>.culled` show one state, and says its summary line (verbosity 1). */
XR_HIDDEN void xr_budget_at_exit(void) __attribute__((weak));

/* Writes `<log_path>.culled` (the functions the budget has culled) when
 * the budget ran in this process; nothing otherwise. Called by basic and
 * FDR where they write the log's `.map`, and by profiling beside its
 * outputs. Not async-signal-safe (snapshots do not call it). */
XR_HIDDEN void xr_budget_write_culled(const char *log_path) __attribute__((weak));

#endif
