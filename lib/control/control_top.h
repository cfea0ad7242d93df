/* `xrayctl top`'s rows (control_top.c), for the commands. */
#ifndef XR_CONTROL_TOP_H
#define XR_CONTROL_TOP_H

#include "control/control_reply.h"
#include "core/base/common.h"

/* Between finalize and flush of an xray-profiling session started with
 * no_flush=true, reads its profile (__xray_log_process_buffers) and answers
 * the top `rows` functions by local time, all threads merged:
 * "CALLS LOCAL_NS TOTAL_NS NAME" lines, busiest first. */
XR_HIDDEN void xr_ctl_top_rows(uint32_t rows, struct xr_ctl_reply *r);

#endif
