/* XRAY_OPTIONS' xray_args, applied at the first instrumentation map
 * (core/modes/args_hooks.h), before patch_premain patches: the first
 * patching already sends the SPEC's functions to the argument
 * trampolines. A bad SPEC is said and the program runs on without one. */
#include "args/args_set.h"

#include "args/args_spec.h"
#include "core/base/report.h"
#include "core/modes/args_hooks.h"
#include "core/options/options.h"
#include "xray/xray_args.h"

void xr_args_first_map(void) {
  if (xr_flags.xray_args[0] == '\0')
    return;
  char err[XR_ARGS_ERROR_MAX];
  int status = xr_args_set(xr_flags.xray_args, err, sizeof err);
  if (status == XRAY_ARGS_INVALID)
    xr_report(XR_ERROR, "XRAY_OPTIONS: xray_args: %s; no argument is captured", err);
  else if (status != XRAY_ARGS_OK)
    xr_report(XR_ERROR, "XRAY_OPTIONS: xray_args: %s", err);
}
