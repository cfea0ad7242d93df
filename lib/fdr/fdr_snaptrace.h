/* The trace files of snapshots (fdr_snaptrace.c). */
#ifndef XR_FDR_SNAPTRACE_H
#define XR_FDR_SNAPTRACE_H

#include "core/base/common.h"

/* The trace files of snapshots (fdr_snaptrace.c), with a stream format in
 * trace_output (chrome: `<snapshot>.json`, perfetto: `<snapshot>.pftrace`):
 * a helper thread converts each
 * new snapshot soon after it, into the formats of outputs. start at init,
 * stop (join) at flush, both on the control path; wake is async-signal-safe
 * (sem_post) and does nothing without a helper; convert_new converts what
 * is new, on the calling thread (flush, after stop). */
XR_HIDDEN void xr_fdr_snaptrace_start(unsigned outputs);
XR_HIDDEN void xr_fdr_snaptrace_wake(void);
XR_HIDDEN void xr_fdr_snaptrace_stop(void);
XR_HIDDEN void xr_fdr_snaptrace_convert_new(void);
XR_HIDDEN void xr_fdr_snaptrace_fork_child(void);

#endif
