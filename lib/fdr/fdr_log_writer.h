/* Writing an FDR log (version 5 or 1) from buffers: one block per thread, calls
 * that nest, a first record at the earliest time: what llvm-xray account,
 * stack and graph need (fdr_log_writer.c, docs/formats.md). Cold path: the
 * flush, and snapshots (async-signal-safe: system calls only, memory from
 * the caller's scratch). */
#ifndef XR_FDR_LOG_WRITER_H
#define XR_FDR_LOG_WRITER_H

#include "core/base/common.h"
#include "fdr/fdr_export.h"

struct xr_fdr_log_stats {
  uint64_t blocks;        /* threads written */
  uint64_t closed;        /* calls closed because unwinding skipped them */
  uint64_t dropped_exits; /* exits whose entries were not kept (ring) */
  uint64_t open_at_end;   /* calls still open at the end of their thread */
  uint64_t whole_bytes;   /* file bytes up to the end of the last block
                             written whole (to cut back to on failure) */
  uint64_t whole_blocks;  /* blocks written whole */
  uint64_t largest_block; /* the largest block written whole, as the
                             header declares it (BufferExtents; version
                             1: the whole block) */
};

/* Scratch memory of the writer when the caller provides it (snapshots:
 * mapped with the buffers). The call stack then has a fixed size: calls
 * deeper than it are written as they are, not checked. */
#define XR_FDR_LOG_SCRATCH ((size_t)128 << 10)

/* Writes header (32 bytes) and the spans, which xr_fdr_spans_order has
 * ordered, to fd (at offset 0) as a log of the header's version (5, or 1:
 * blocks from NewBuffer to EndOfBuffer, no Pid, version 1 custom events), no larger than `limit`
 * bytes (EFBIG beyond). scratch: XR_FDR_LOG_SCRATCH bytes, or NULL to map
 * its own (and grow the call stack as needed). Bytes 16-23 of the header
 * become the largest block's size when that is larger than theirs. Returns
 * 0, or -1 with errno set when a write failed (stats->whole_bytes says what
 * is whole). */
XR_HIDDEN int xr_fdr_write_log(int fd, const uint8_t header[32],
                               const struct xr_fdr_span *spans, size_t n,
                               void *scratch, uint64_t limit,
                               struct xr_fdr_log_stats *stats);

/* The same file, for the flush (ordinary context, not async-signal-safe):
 * an I/O thread of its own writes each piece while the next is scanned;
 * serial when the thread cannot start. Scratch of its own. */
XR_HIDDEN int xr_fdr_write_log_pipelined(int fd, const uint8_t header[32],
                                         const struct xr_fdr_span *spans,
                                         size_t n, uint64_t limit,
                                         struct xr_fdr_log_stats *stats);

#endif
