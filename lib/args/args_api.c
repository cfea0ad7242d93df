/* include/xray/xray_args.h: thin doors on args_set.c, which the option
 * and the control socket's `args` verb use too. */
#include "args/args_set.h"

#include "args/args_spec.h"
#include "core/base/report.h"
#include "xray/xray_args.h"

XR_API int __xray_args_set_error(const char *spec, char *err, size_t cap) {
  return xr_args_set(spec, err, err != NULL ? cap : 0);
}

XR_API int __xray_args_set(const char *spec) {
  char err[XR_ARGS_ERROR_MAX];
  int status = xr_args_set(spec, err, sizeof err);
  if (status == XRAY_ARGS_INVALID)
    xr_report(XR_INFO, "__xray_args_set: %s; the SPEC in effect stays", err);
  else if (status == XRAY_ARGS_FAILED)
    xr_report(XR_ERROR, "__xray_args_set: %s", err);
  return status;
}

XR_API int __xray_args_clear(void) { return __xray_args_set(NULL); }

XR_API size_t __xray_args_get(char *buf, size_t cap) { return xr_args_get(buf, cap); }
