/* One decoded event of a trace and what a trace format is: the types the
 * modes that record traces (basic, FDR) hand to the writers of trace files
 * (trace_formats.h: the table of formats; chrome_trace.c: one of them). */
#ifndef XR_EXPORT_TRACE_EVENT_H
#define XR_EXPORT_TRACE_EVENT_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"

enum xr_tev_kind {
  XR_TEV_ENTER,
  XR_TEV_EXIT,
  XR_TEV_TAIL_EXIT,
  XR_TEV_CUSTOM,
  XR_TEV_TYPED,
  XR_TEV_DROPPED /* the mode lost `arg` events of the kind `data` names (a
                    NUL-terminated text such as "nested events") before
                    they reached the stream; tid 0: the whole process. tsc
                    0: at the end of the trace. Never with arg 0. */
};

/* One decoded record of a thread. */
struct xr_tev {
  enum xr_tev_kind kind;
  int32_t fid;          /* function records */
  bool has_arg;         /* an entry that logged its first argument */
  bool unwound;         /* an exit the mode wrote while unwinding: the
                           call's own exit was skipped (longjmp, throw) */
  uint64_t arg;         /* the argument; XR_TEV_DROPPED: the count */
  /* Values argument capture took (core/modes/arg_values.h), NULL when
   * none: an entry's arguments, an exit's return value. Valid for the
   * call of `event` only (a writer copies what it keeps). When set on an
   * entry, has_arg is false: the values say it all. */
  const struct xr_arg_call *call;
  uint64_t tsc;         /* timestamp in ticks of the log's frequency */
  uint16_t event_type;  /* typed events */
  const void *data;     /* custom and typed events: payload */
  size_t size;
};

/* Names function ids; never returns NULL. */
typedef const char *(*xr_fn_name_fn)(void *ctx, int32_t fid);

/* The name of thread (pid, tid) in buf (cap bytes) or elsewhere, NULL when
 * it is not known. */
typedef const char *(*xr_thread_name_fn)(void *ctx, int32_t pid, int32_t tid,
                                         char *buf, size_t cap);
/* The name of process pid (the program's); never returns NULL. */
typedef const char *(*xr_process_name_fn)(void *ctx, int32_t pid);

/* What a writer knows besides the events. Everything a writer needs from
 * the runtime comes through here, so the writers depend on no runtime
 * state (a tool outside the runtime can feed them). */
struct xr_trace_context {
  uint64_t frequency_hz; /* ticks per second of the events' tsc */
  uint64_t base_ticks;   /* time 0 of a file that counts from one */
  /* CLOCK_BOOTTIME in ns at base_ticks, for the formats that place their
   * time on a system clock (Perfetto); 0 when unknown. */
  uint64_t base_boottime_ns;
  xr_fn_name_fn name;
  void *name_ctx;
  xr_thread_name_fn thread_name;   /* NULL: threads are not named */
  xr_process_name_fn process_name; /* NULL: "process" */
  void *who_ctx;                   /* of thread_name and process_name */
  /* The writer prints nothing (it runs in a signal handler, or a tool
   * speaks for it): open returns NULL and close -1, the caller says why. */
  bool quiet;
};

/* A format written from the stream: a file `<log><suffix>` beside the log. */
struct xr_trace_format {
  const char *suffix;
  /* Writes to fd (the writer owns it from here, success or not); path names
   * the file in messages. NULL: could not start (reported unless quiet). */
  void *(*open)(int fd, const char *path, const struct xr_trace_context *c);
  /* One record of thread (pid, tid). */
  void (*event)(void *w, int32_t pid, int32_t tid, const struct xr_tev *e);
  /* Ends the file and frees w: 0, or -1 when it is not whole (reported
   * unless the context was quiet). */
  int (*close)(void *w);
  /* open, event and close are async-signal-safe when the context is quiet
   * and its callbacks are: no malloc, stdio, locks or /proc, memory from
   * mmap, output by write(2). A crash handler may run only these. */
  bool signal_safe;
};

#endif
