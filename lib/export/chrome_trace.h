/* Chrome trace event JSON (what Perfetto UI and chrome://tracing open),
 * written beside a basic or FDR log as `<log>.json`. Cold path only.
 *
 * The modes decode their own records and hand them here one by one, each
 * thread's records in time order (threads may interleave). The writer keeps
 * one call stack per thread and emits one complete ("X") event per call when
 * the call ends, so memory is bounded by the threads and their depth, never
 * by the length of the trace. The file is a bare JSON array written in whole
 * events: cut off at any point (the process killed mid-write), what is there
 * plus a closing `]` is valid JSON, and Perfetto loads it as it is.
 *
 * Marks (an "args" entry "cut"), never drops:
 *   "unwound"    the call's exit was skipped (longjmp, exception): it ends
 *                when a caller's exit revealed it;
 *   "open"       the call had not returned when the trace ended: it ends at
 *                the thread's last known time;
 *   "no-entry"   the trace began inside the call (its entry was not kept):
 *                it starts at the thread's first known time. */
#ifndef XR_EXPORT_CHROME_TRACE_H
#define XR_EXPORT_CHROME_TRACE_H

#include "core/common.h"

enum xr_tev_kind {
  XR_TEV_ENTER,
  XR_TEV_EXIT,
  XR_TEV_TAIL_EXIT,
  XR_TEV_CUSTOM,
  XR_TEV_TYPED
};

/* One decoded record of a thread. */
struct xr_tev {
  enum xr_tev_kind kind;
  int32_t fid;          /* function records */
  bool has_arg;         /* an entry that logged its first argument */
  uint64_t arg;
  uint64_t tsc;         /* timestamp in ticks of the log's frequency */
  uint16_t event_type;  /* typed events */
  const void *data;     /* custom and typed events: payload */
  size_t size;
};

/* Names function ids; never returns NULL. */
typedef const char *(*xr_chrome_name_fn)(void *ctx, int32_t fid);

struct xr_chrome;

/* Creates `<log_path>.json` exclusively and writes its opening. Ticks become
 * microseconds at frequency_hz. Returns NULL (reported at XR_ERROR) when the
 * file or the writer's memory cannot be had. */
XR_HIDDEN struct xr_chrome *xr_chrome_open(const char *log_path,
                                           uint64_t frequency_hz,
                                           xr_chrome_name_fn name,
                                           void *name_ctx);
/* The same writing to an open descriptor (tests); path names it in messages. */
XR_HIDDEN struct xr_chrome *xr_chrome_open_fd(int fd, const char *path,
                                              uint64_t frequency_hz,
                                              xr_chrome_name_fn name,
                                              void *name_ctx);

/* One record of thread (pid, tid). */
XR_HIDDEN void xr_chrome_add(struct xr_chrome *w, int32_t pid, int32_t tid,
                             const struct xr_tev *e);

/* Ends calls still open (marked "open"), names the threads
 * (/proc/<pid>/task/<tid>/comm while they live), closes the array and the
 * file, frees w. Returns 0, or -1 when a write failed (reported). */
XR_HIDDEN int xr_chrome_close(struct xr_chrome *w);

/* The trace_output option of basic and FDR modes: a list of "xray" (the
 * binary log) and "chrome" (`<log>.json`) joined by '+' or ','. Returns the
 * XR_TRACE_OUT_* bits, 0 when a word is unknown or none is given. */
enum { XR_TRACE_OUT_XRAY = 1, XR_TRACE_OUT_CHROME = 2 };
XR_HIDDEN unsigned xr_trace_outputs_parse(const char *s);

/* Names for function ids (the name table of core/names.c), loaded on first
 * use; NULL-safe. For the modes' flush paths. */
XR_HIDDEN const char *xr_chrome_self_name(void *ctx, int32_t fid);
/* The same for FDR's dense ids (core/objects.h). */
XR_HIDDEN const char *xr_chrome_dense_name(void *ctx, int32_t fid);
XR_HIDDEN void *xr_chrome_self_names_open(void);
XR_HIDDEN void xr_chrome_self_names_close(void *ctx);

#endif
