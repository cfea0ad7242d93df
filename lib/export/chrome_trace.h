/* Chrome trace event JSON (what Perfetto UI and chrome://tracing open),
 * written beside a basic or FDR log as `<log>.json`. Cold path only.
 *
 * One format of the decoded event stream (trace_event.h): the modes
 * decode their own records and hand them here one by one, each thread's
 * records in time order (threads may interleave). The writer keeps one
 * call stack per thread (trace_threads.h) and emits one complete ("X")
 * event per call when the call ends, so memory is bounded by the threads
 * and their depth, never by the length of the trace. The file is a bare
 * JSON array written in whole events: cut off at any point (the process
 * killed mid-write), what is there plus a closing `]` is valid JSON, and
 * Perfetto loads it as it is.
 *
 * Marks (an "args" entry "cut"), never drops:
 *   "unwound"    the call's exit was skipped (longjmp, exception): it ends
 *                when a caller's exit revealed it (an exit the mode flagged
 *                xr_tev.unwound, or a call left above an exit's on the
 *                writer's stack);
 *   "open"       the call had not returned when the trace ended: it ends at
 *                the thread's last known time;
 *   "no-entry"   the trace began inside the call (its entry was not kept):
 *                it starts at the thread's first known time.
 * What the mode dropped (XR_TEV_DROPPED) is an instant event "xray
 * dropped" with args {"what", "count"}. */
#ifndef XR_EXPORT_CHROME_TRACE_H
#define XR_EXPORT_CHROME_TRACE_H

#include "export/trace_event.h"

/* The format row of trace_formats.c ("chrome", `<log>.json`). */
XR_HIDDEN extern const struct xr_trace_format xr_chrome_format;

struct xr_chrome;

/* Writes to fd (tests call it; the table opens the file); path names it
 * in messages. Ticks become microseconds at c->frequency_hz, counted from
 * c->base_ticks (ts 0). Returns NULL (reported at XR_ERROR unless
 * c->quiet; errno ENOMEM) when the writer's memory cannot be had. */
XR_HIDDEN struct xr_chrome *xr_chrome_open_fd(int fd, const char *path,
                                              const struct xr_trace_context *c);

/* One record of thread (pid, tid). */
XR_HIDDEN void xr_chrome_add(struct xr_chrome *w, int32_t pid, int32_t tid,
                             const struct xr_tev *e);

/* Ends calls still open (marked "open"), names the threads and processes
 * (the context's callbacks), closes the array and the file, frees w.
 * Returns 0, or -1 with errno set when a write failed (reported unless
 * quiet). */
XR_HIDDEN int xr_chrome_close(struct xr_chrome *w);

#endif
