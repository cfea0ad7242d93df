/* What core asks of argument capture (lib/args), which sits above it: as
 * budget_hooks.h, each function is defined by lib/args (weak here: NULL
 * when it is not linked). Cold path only. */
#ifndef XR_ARGS_HOOKS_H
#define XR_ARGS_HOOKS_H

#include "core/base/common.h"

/* At the first instrumentation map (core/start/start.c), before the mode
 * XRAY_OPTIONS names starts and before patch_premain patches: makes
 * xray_args the SPEC in effect when it is set (a bad SPEC is said, and
 * none is in effect). Idempotent. */
XR_HIDDEN void xr_args_first_map(void) __attribute__((weak));

#endif
