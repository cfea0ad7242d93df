/* A snapshot joined per thread as the exit-time log (fdr_snapshot_log.c). */
#ifndef XR_FDR_SNAPSHOT_LOG_H
#define XR_FDR_SNAPSHOT_LOG_H

#include "core/base/common.h"

/* Writes the snapshot to fd (new, empty) joined per thread as the
 * exit-time log, from its image in memory: the 32-byte header (version 1
 * or 5), then one block per buffer, each a BufferExtents record and its
 * records (version 1 too: the image is the snapshot's own). No larger than
 * `limit` bytes. scratch: the slot's scratch area, whose first max_spans
 * entries may hold the blocks. Returns 0, or -1 with errno when a write
 * failed: the file is then cut back to the threads written whole,
 * *whole_threads of them. Async-signal-safe. */
XR_HIDDEN int xr_fdr_snapshot_join(int fd, const uint8_t *image,
                                   uint64_t size, uint8_t *scratch,
                                   size_t max_spans, uint64_t limit,
                                   uint64_t *whole_threads);

/* A snapshot written as the buffers are (no memory for its image): the
 * header (fd's first 32 bytes) declares `largest` when it exceeds
 * buffer_size. 0, or -1 with errno. Async-signal-safe. */
XR_HIDDEN int xr_fdr_snapshot_declare_largest(int fd, uint64_t largest);

#endif
