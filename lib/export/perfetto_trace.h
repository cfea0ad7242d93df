/* A native Perfetto trace (protos/perfetto/trace/trace.proto: a Trace, a
 * stream of TracePackets), written beside a basic or FDR log as
 * `<log>.pftrace`. Cold path only; async-signal-safe (below).
 *
 * One format of the decoded event stream (trace_event.h), fed one record
 * at a time, each thread's in time order (threads may interleave). What it
 * writes (docs/formats.md "Perfetto trace" has every field):
 * - sequence 1: a ClockSnapshot naming BOOTTIME the trace's clock, one
 *   process track per pid (named after the program, the runtime's version
 *   as a label), the calls cut at their start ("no-entry") and the drops,
 *   with absolute BOOTTIME timestamps;
 * - one sequence per thread (2, 3, ... in order of first sight): a
 *   ClockSnapshot that ties clock 64, sequence-scoped and incremental, to
 *   BOOTTIME at the thread's first event; a packet that clears the
 *   sequence's state and sets its defaults (clock 64, the thread's track)
 *   beside the thread's TrackDescriptor (pid, tid, name); then one packet
 *   per call's begin and end (TYPE_SLICE_BEGIN / TYPE_SLICE_END), its
 *   timestamp the delta in ns since the sequence's last, the function's
 *   name interned once per sequence (InternedData.event_names). A begin
 *   whose name is known is 12 bytes (13 when the delta passes 127 ns), an
 *   end 10 (11);
 * - custom and typed events: TYPE_INSTANT on their thread's track, the
 *   payload (at most 4 KiB, escaped) as debug annotations.
 * Calls cut short keep the rule both writers share (trace_threads.h; the
 * marks as chrome_trace.h describes them) and say it in a "cut" debug
 * annotation: "unwound" and "open" on the end, "no-entry" on the begin,
 * which sequence 1 writes k ns before the thread's first time
 * (k = 1 for the thread's first such call, 2 for the next: each encloses
 * the ones before it), so no slice begins at the same time as one it
 * encloses and the trace processor, which orders equal times by file
 * position, nests them.
 *
 * Memory: the threads and their call stacks (trace_threads.h) and per
 * thread the table of names it interned, all mmap'd and grown by
 * doubling; the output goes through text_out.h's writer with a 256 KiB
 * buffer written out between packets. No malloc, no stdio, no locks, no
 * /proc: with a quiet context (trace_event.h) and signal-safe callbacks,
 * open, add and close may run in a signal handler. */
#ifndef XR_EXPORT_PERFETTO_TRACE_H
#define XR_EXPORT_PERFETTO_TRACE_H

#include "export/trace_event.h"

/* The format row of trace_formats.c ("perfetto", `<log>.pftrace`). */
XR_HIDDEN extern const struct xr_trace_format xr_perfetto_format;

struct xr_perfetto;

/* Writes to fd (the caller keeps it on failure); path names it in
 * messages. NULL when the writer's memory cannot be had (reported unless
 * c->quiet; errno ENOMEM). */
XR_HIDDEN struct xr_perfetto *xr_perfetto_open_fd(
    int fd, const char *path, const struct xr_trace_context *c);

/* One record of thread (pid, tid). */
XR_HIDDEN void xr_perfetto_add(struct xr_perfetto *w, int32_t pid,
                               int32_t tid, const struct xr_tev *e);

/* Ends calls still open (marked "open"), closes the file, frees w.
 * Returns 0, or -1 with errno set when a write or the close failed
 * (reported unless the context was quiet). */
XR_HIDDEN int xr_perfetto_close(struct xr_perfetto *w);

#endif
