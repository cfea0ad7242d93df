/* One decoded event of a trace and what a trace format is: the types the
 * modes that record traces (basic, FDR) hand to the writers of trace files
 * (trace_formats.h: the table of formats; chrome_trace.c: one of them). */
#ifndef XR_EXPORT_TRACE_EVENT_H
#define XR_EXPORT_TRACE_EVENT_H

#include "core/base/common.h"

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
  bool unwound;         /* an exit the mode wrote while unwinding: the
                           call's own exit was skipped (longjmp, throw) */
  uint64_t arg;
  uint64_t tsc;         /* timestamp in ticks of the log's frequency */
  uint16_t event_type;  /* typed events */
  const void *data;     /* custom and typed events: payload */
  size_t size;
};

/* Names function ids; never returns NULL. */
typedef const char *(*xr_fn_name_fn)(void *ctx, int32_t fid);

/* What a writer knows besides the events. */
struct xr_trace_context {
  uint64_t frequency_hz; /* ticks per second of the events' tsc */
  uint64_t base_ticks;   /* time 0 of a file that counts from one */
  xr_fn_name_fn name;
  void *name_ctx;
  /* PLACEHOLDER until h/perfetto: thread and process names */
  const char *(*thread_name)(void *ctx, int32_t pid, int32_t tid, char buf[16]);
  const char *process_name;
};

/* A format written from the stream: a file `<log><suffix>` beside the log. */
struct xr_trace_format {
  const char *suffix;
  /* Writes to fd (the writer owns it from here, success or not); path names
   * the file in messages. NULL: could not start (reported). */
  void *(*open)(int fd, const char *path, const struct xr_trace_context *c);
  /* One record of thread (pid, tid). */
  void (*event)(void *w, int32_t pid, int32_t tid, const struct xr_tev *e);
  /* Ends the file and frees w: 0, or -1 when it is not whole (reported). */
  int (*close)(void *w);
  bool signal_safe; /* PLACEHOLDER until h/perfetto */
};

#endif
