/* The Chrome JSON of snapshots (fdr_snapjson.c). */
#ifndef XR_FDR_SNAPJSON_H
#define XR_FDR_SNAPJSON_H

#include "core/common.h"

/* The JSON of snapshots (fdr_snapjson.c), with trace_output=chrome: a
 * helper thread converts each new snapshot soon after it. start at init,
 * stop (join) at flush, both on the control path; wake is async-signal-safe
 * (sem_post) and does nothing without a helper; convert_new converts what
 * is new, on the calling thread (flush, after stop). */
XR_HIDDEN void xr_fdr_snapjson_start(void);
XR_HIDDEN void xr_fdr_snapjson_wake(void);
XR_HIDDEN void xr_fdr_snapjson_stop(void);
XR_HIDDEN void xr_fdr_snapjson_convert_new(void);
XR_HIDDEN void xr_fdr_snapjson_fork_child(void);

#endif
