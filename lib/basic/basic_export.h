/* Basic mode's log as the decoded event stream (basic_export.c). */
#ifndef XR_BASIC_EXPORT_H
#define XR_BASIC_EXPORT_H

#include "core/base/common.h"
#include "export/trace_formats.h"

/* Writes every stream format of outputs (XR_TRACE_OUT_*: `<log_path>.json`
 * for chrome, `.pftrace` for perfetto) from the closed log, and in each the
 * n drops the mode counted. Returns 0 or -1 (reported). */
XR_HIDDEN int xr_basic_write_streams(const char *log_path, unsigned outputs,
                                     const struct xr_trace_drop *drops,
                                     size_t n);

#endif
