/* FDR buffers as a stream of decoded records, thread by thread in time
 * order: what the readable views (lib/export/) and the log writer consume.
 * Cold path only (flush, snapshots). */
#ifndef XR_FDR_EXPORT_H
#define XR_FDR_EXPORT_H

#include "core/base/common.h"
#include "export/trace_formats.h"

/* One buffer's records as written by the handlers: from its NewBuffer
 * record on (no BufferExtents in front; a version 1 buffer may end with
 * EndOfBuffer). pid, tid and first_tsc are filled by xr_fdr_spans_order. */
struct xr_fdr_span {
  const uint8_t *data;
  size_t size;
  int32_t pid, tid;
  uint64_t first_tsc;
};

/* Reads each span's preamble (spans without one get tid 0) and sorts the
 * spans by process, thread, then first timestamp: each thread's buffers
 * become one run in time order, whatever order the queue held them in.
 * Async-signal-safe (snapshots call it). */
XR_HIDDEN void xr_fdr_spans_order(struct xr_fdr_span *spans, size_t n,
                                  int version);

/* Calls fn for every function record, custom and typed event of the span
 * (with its absolute timestamp); a CallArgument is passed with the entry it
 * follows (compiler-rt's: arg, has_arg; captured values: call), and an
 * "xray-args" event with the entry or exit before it (call: the strings'
 * text, the return value), never as a custom event. Stops at a malformed
 * record. */
typedef void (*xr_fdr_record_fn)(void *ctx, const struct xr_fdr_span *span,
                                 const struct xr_tev *e, uint16_t cpu);
XR_HIDDEN void xr_fdr_span_decode(const struct xr_fdr_span *span, int version,
                                  xr_fdr_record_fn fn, void *ctx);

/* The decoded stream of an FDR file in memory (version 2+: its blocks
 * framed by BufferExtents; a log or snapshot of this process, joined) into
 * open writers: the calls of its whole blocks (at most max_spans, a block
 * cut short ends it), each thread's in time order. spans: the caller's room
 * for max_spans. Returns the blocks read, or -1 for version 1 (no block
 * lengths) or a file shorter than its header. Async-signal-safe when the
 * writers are: it allocates nothing (a crash snapshot's trace). */
XR_HIDDEN int xr_fdr_image_to_writers(struct xr_trace_writers *w,
                                      const uint8_t *file, size_t size,
                                      struct xr_fdr_span *spans,
                                      size_t max_spans);

/* Writes every stream format of outputs (XR_TRACE_OUT_*: `<log_path>.json`
 * for chrome, `.pftrace` for perfetto) from any set of FDR buffers of this
 * process, and in each the n_drops drops the mode counted: the flush calls
 * it. Orders the spans in place (xr_fdr_spans_order). Returns 0, or -1 when
 * a file could not be written (reported). */
XR_HIDDEN int xr_fdr_write_streams(const char *log_path, unsigned outputs,
                                   struct xr_fdr_span *spans, size_t n,
                                   int version, uint64_t frequency_hz,
                                   const struct xr_trace_drop *drops,
                                   size_t n_drops);

/* The same from an FDR file of this process (version 2+), read back: how
 * snapshots get theirs. Each is written as `<log_path><suffix>.part`,
 * renamed to `<log_path><suffix>` when whole (removed on failure). */
XR_HIDDEN int xr_fdr_file_write_streams(const char *log_path,
                                        unsigned outputs,
                                        uint64_t frequency_hz);

#endif
