/* The decoded event stream: the one interface between the modes that record
 * traces (basic, FDR) and the writers of trace files. Cold path only.
 *
 * A mode decodes its own records and hands them, each thread's in time
 * order (threads may interleave), to every writer the user chose with
 * trace_output; a writer sees only this stream and its context (the file,
 * the clock, the names of function ids), never a mode's records. The words
 * of trace_output are the rows of one table (trace_formats.c), so adding a
 * format is one new file in lib/export/ (a struct xr_trace_format) and one
 * row there: no mode changes. */
#ifndef XR_EXPORT_TRACE_FORMATS_H
#define XR_EXPORT_TRACE_FORMATS_H

#include "core/base/common.h"
#include "export/trace_event.h"

/* The trace_output option of basic and FDR modes: words of the table joined
 * by '+' or ','. "xray" is the mode's own log (written by the mode); every
 * other word is a stream format. Returns bit i for row i, 0 when a word is
 * unknown or none is given. */
enum { XR_TRACE_OUT_XRAY = 1, XR_TRACE_OUT_CHROME = 2, XR_TRACE_OUT_PERFETTO = 4 };
XR_HIDDEN unsigned xr_trace_outputs_parse(const char *s);
/* "xray and chrome": the words, for messages. */
XR_HIDDEN const char *xr_trace_outputs_words(void);
/* The words with what each writes, for the option's help text (a struct
 * xr_option's words function). */
XR_HIDDEN void xr_trace_outputs_help(char *buf, size_t cap);
/* The stream formats of outputs and the files they write beside log_path,
 * "chrome ('<log>.json')", for messages. */
XR_HIDDEN void xr_trace_outputs_files(unsigned outputs, const char *log_path,
                                      char *buf, size_t cap);
/* True when outputs has a stream format (a file beside the log): the mode
 * then decodes its records at flush and keeps the names of exited threads. */
XR_HIDDEN bool xr_trace_outputs_streamed(unsigned outputs);

/* Function ids as the modes record them: packed (object << 24 | function,
 * every object's; basic) or dense (FDR, core/objects/objects.h). */
enum xr_trace_ids { XR_TRACE_IDS_PACKED, XR_TRACE_IDS_DENSE };

#define XR_TRACE_FORMATS_MAX 8

/* The open writers of one trace: what the modes' decoders feed. */
struct xr_trace_writers {
  size_t n;
  const struct xr_trace_format *format[XR_TRACE_FORMATS_MAX];
  void *w[XR_TRACE_FORMATS_MAX];
  /* temp: written as `<log><suffix>.part`, renamed when whole. */
  bool temp;
  const char *log_path; /* the caller's, until close */
};

/* Opens `<log_path><suffix>` for every stream format in outputs (with temp,
 * `<log_path><suffix>.part`, renamed over `<log_path><suffix>` at close when
 * whole: whoever waits for the file never reads half of it). Returns the
 * number opened; those that cannot be are reported and left out. */
XR_HIDDEN size_t xr_trace_writers_open(struct xr_trace_writers *s,
                                       unsigned outputs, const char *log_path,
                                       uint64_t frequency_hz,
                                       enum xr_trace_ids ids, bool temp);
static inline void xr_trace_writers_event(struct xr_trace_writers *s,
                                          int32_t pid, int32_t tid,
                                          const struct xr_tev *e) {
  for (size_t i = 0; i < s->n; i++)
    s->format[i]->event(s->w[i], pid, tid, e);
}
/* What a mode lost before its records reached the stream, one kind each
 * ("nested events": count). */
struct xr_trace_drop {
  const char *what;
  uint64_t count;
};
/* Says the drops of process pid in every writer (XR_TEV_DROPPED records at
 * the end of the trace); kinds with count 0 are left out. */
XR_HIDDEN void xr_trace_writers_dropped(struct xr_trace_writers *s,
                                        int32_t pid,
                                        const struct xr_trace_drop *d,
                                        size_t n);
/* Closes them all: 0, or -1 when one failed (reported). */
XR_HIDDEN int xr_trace_writers_close(struct xr_trace_writers *s);

#endif
