/* The Chrome JSON of snapshots (fdr_snapjson.c). */
#ifndef XR_FDR_SNAPJSON_H
#define XR_FDR_SNAPJSON_H

#include "core/base/common.h"

/* The trace files of snapshots (fdr_snapjson.c), with a stream format in
 * trace_output (chrome: `<snapshot>.json`): a helper thread converts each
 * new snapshot soon after it, into the formats of outputs. start at init,
 * stop (join) at flush, both on the control path; wake is async-signal-safe
 * (sem_post) and does nothing without a helper; convert_new converts what
 * is new, on the calling thread (flush, after stop). */
XR_HIDDEN void xr_fdr_snapjson_start(unsigned outputs);
XR_HIDDEN void xr_fdr_snapjson_wake(void);
XR_HIDDEN void xr_fdr_snapjson_stop(void);
XR_HIDDEN void xr_fdr_snapjson_convert_new(void);
XR_HIDDEN void xr_fdr_snapjson_fork_child(void);

#endif
