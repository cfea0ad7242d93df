/* A snapshot joined per thread as the exit-time log (fdr_snapshot_log.c). */
#ifndef XR_FDR_SNAPSHOT_LOG_H
#define XR_FDR_SNAPSHOT_LOG_H

#include "core/base/common.h"

/* Ends the snapshot `name` (open read-write as fd, `size` bytes, as
 * fdr_snapshot.c wrote it: one block per buffer, the largest `largest`
 * bytes): version 5 is joined per thread as the exit-time log
 * (fdr_snapshot_log.c) through `<name>.tmp` renamed over it; otherwise, or
 * when that fails, the header declares the largest block when it exceeds
 * buffer_size. scratch: the slot's scratch area, whose first max_spans
 * entries may hold the blocks. 0, or -1 with errno when the join failed
 * (the file is then as written). Async-signal-safe. */
XR_HIDDEN int xr_fdr_snapshot_finish(int fd, uint64_t size, const char *name,
                                     int version, uint64_t largest,
                                     uint8_t *scratch, size_t max_spans,
                                     uint64_t limit);

#endif
