/* FDR's populating helper: a thread that faults fresh buffers in ahead of
 * the writers, so that the kernel's cost of backing new memory is paid off
 * the traced threads (fdr_prefault.c says how). */
#ifndef XR_FDR_PREFAULT_H
#define XR_FDR_PREFAULT_H

#include "core/base/common.h"
#include "fdr/buffer_queue.h"

/* Buffers of no more than this many bytes in all get no helper: each
 * writer faults in its own (the default 100 x 16 KiB among them). */
#define XR_FDR_PREFAULT_MIN ((size_t)4 << 20)

/* Control path (init): starts the helper for q when q holds more than
 * XR_FDR_PREFAULT_MIN bytes of buffers and lead_bytes > 0; it keeps up to
 * lead_bytes of never-used buffers faulted in beyond the last one taken.
 * Returns true when a helper runs (false: none needed, or it could not be
 * created, which is reported; the writers then fault in their own). */
XR_HIDDEN bool xr_fdr_prefault_start(struct xr_fdr_queue *q, size_t lead_bytes);
/* Slow path, after a buffer was taken (signal handlers included: only an
 * atomic exchange and sem_post): wakes the helper if it waits. */
XR_HIDDEN void xr_fdr_prefault_wake(void);
/* Control path (finalize, init): ends the helper and waits for it (at most
 * one populate step); no-op when none runs. */
XR_HIDDEN void xr_fdr_prefault_stop(void);
/* Fork child: the helper was the parent's; nothing to join. */
XR_HIDDEN void xr_fdr_prefault_fork_child(void);

#endif
