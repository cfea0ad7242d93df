/* Basic mode's log as the decoded event stream (basic_export.c). */
#ifndef XR_BASIC_EXPORT_H
#define XR_BASIC_EXPORT_H

#include "core/base/common.h"

/* Writes every stream format of outputs (XR_TRACE_OUT_*: `<log_path>.json`
 * for chrome) from the closed log. Returns 0 or -1 (reported). */
XR_HIDDEN int xr_basic_write_streams(const char *log_path, unsigned outputs);

#endif
