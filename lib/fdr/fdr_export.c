/* FDR buffers -> the decoded event stream, per thread in time order, to
 * the trace writers. See fdr_export.h. */
#include "fdr/fdr_export.h"
#include "core/base/heap_sort.h"
#include "core/base/mmap_array.h"
#include "core/base/report.h"
#include "core/output/output.h"
#include "core/thread/thread.h"
#include "fdr/fdr_arg_records.h"
#include "fdr/fdr_records.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int32_t get_i32(const uint8_t *p) { return (int32_t)xr_fdr_get32(p); }

static int by_thread_then_time(const void *a, const void *b) {
  const struct xr_fdr_span *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->first_tsc != y->first_tsc)
    return x->first_tsc < y->first_tsc ? -1 : 1;
  /* Same start (empty buffers): keep queue order, deterministic output. */
  return x->data < y->data ? -1 : x->data > y->data;
}

void xr_fdr_spans_order(struct xr_fdr_span *spans, size_t n, int version) {
  int32_t own_pid = xr_pid();
  for (size_t i = 0; i < n; i++) {
    struct xr_fdr_span *s = &spans[i];
    s->pid = own_pid; /* version 1 has no Pid record */
    s->tid = 0;
    s->first_tsc = 0;
    /* The preamble: NewBuffer, Walltime, [Pid,] NewCPUId. */
    for (size_t off = 0; off + XR_FDR_META_SIZE <= s->size &&
                         off < 4 * XR_FDR_META_SIZE;
         off += XR_FDR_META_SIZE) {
      const uint8_t *p = s->data + off;
      if ((p[0] & 1) == 0)
        break;
      unsigned kind = p[0] >> 1;
      if (kind == XR_FDR_NEW_BUFFER) {
        s->tid = get_i32(p + 1);
      } else if (kind == XR_FDR_PID && version >= 3) {
        s->pid = get_i32(p + 1);
      } else if (kind == XR_FDR_NEW_CPU) {
        s->first_tsc = xr_fdr_get64(p + 3);
        break;
      }
    }
  }
  xr_heap_sort(spans, n, sizeof *spans, by_thread_then_time);
}

/* The CallArguments after an entry of kind 3 at p: compiler-rt's first
 * argument (has_arg, arg), or the values argument capture took, into c
 * (e->call). Returns the position after them. */
static const uint8_t *call_arguments(const uint8_t *p, const uint8_t *end,
                                     struct xr_tev *e, struct xr_arg_call *c) {
  const uint8_t arg_record = (XR_FDR_CALL_ARGUMENT << 1) | 1;
  for (bool first = true; end - p >= XR_FDR_META_SIZE && p[0] == arg_record;
       first = false, p += XR_FDR_META_SIZE) {
    if (xr_fdr_call_argument_take(p, first, &e->has_arg, &e->arg, c))
      e->call = c;
  }
  return p;
}

/* The "xray-args" event right after an entry with string values or an
 * exit (at p): the strings' text, or the return value, into e's call c;
 * the running timestamp moves by its delta. Returns the position after
 * it, or p when there is none. */
static const uint8_t *args_event_after(const uint8_t *p, const uint8_t *end, int version,
                                       uint64_t *tsc, struct xr_tev *e,
                                       struct xr_arg_call *c) {
  if (end - p < XR_FDR_META_SIZE || p[0] != ((XR_FDR_CUSTOM_EVENT << 1) | 1))
    return p;
  int32_t bytes = get_i32(p + 1);
  const uint8_t *data = p + XR_FDR_META_SIZE;
  if (bytes <= 0 || (size_t)(end - data) < (size_t)bytes ||
      !xr_fdr_is_args_event(data, (size_t)bytes))
    return p;
  if (xr_fdr_args_event_take(e->kind == XR_TEV_ENTER, c, data, (size_t)bytes))
    e->call = c;
  if (version >= 5)
    *tsc += (uint64_t)(int64_t)get_i32(p + 5);
  return data + bytes;
}

void xr_fdr_span_decode(const struct xr_fdr_span *span, int version,
                        xr_fdr_record_fn fn, void *ctx) {
  const uint8_t *p = span->data, *end = span->data + span->size;
  uint64_t tsc = 0;
  uint16_t cpu = 0;
  struct xr_arg_call call; /* of the record being decoded (e.call) */
  while (p < end) {
    if ((p[0] & 1) == 0) { /* function record */
      if (end - p < XR_FDR_FN_SIZE)
        return;
      uint32_t word = xr_fdr_get32(p);
      tsc += xr_fdr_get32(p + 4);
      unsigned kind = (word >> 1) & 7;
      struct xr_tev e = {.fid = (int32_t)(word >> 4), .tsc = tsc};
      p += XR_FDR_FN_SIZE;
      switch (kind) {
      case XR_FDR_FN_ENTER_ARG:
        p = call_arguments(p, end, &e, &call);
        /* fall through */
      case XR_FDR_FN_ENTER:
        e.kind = XR_TEV_ENTER;
        break;
      case XR_FDR_FN_EXIT:
        e.kind = XR_TEV_EXIT;
        break;
      case XR_FDR_FN_TAIL_EXIT:
        e.kind = XR_TEV_TAIL_EXIT;
        break;
      default:
        return;
      }
      if (e.kind != XR_TEV_ENTER || (e.call != NULL && call.strings != 0))
        p = args_event_after(p, end, version, &tsc, &e, &call);
      fn(ctx, span, &e, cpu);
      continue;
    }
    if (end - p < XR_FDR_META_SIZE)
      return;
    unsigned kind = p[0] >> 1;
    size_t size = XR_FDR_META_SIZE;
    switch (kind) {
    case XR_FDR_END_OF_BUFFER:
      return;
    case XR_FDR_NEW_CPU:
      cpu = (uint16_t)(p[1] | p[2] << 8);
      tsc = xr_fdr_get64(p + 3);
      break;
    case XR_FDR_TSC_WRAP:
      tsc = xr_fdr_get64(p + 1);
      break;
    case XR_FDR_CUSTOM_EVENT:
    case XR_FDR_TYPED_EVENT: {
      int32_t bytes = get_i32(p + 1);
      if (bytes <= 0 || (size_t)(end - p) - XR_FDR_META_SIZE < (size_t)bytes)
        return;
      size += (size_t)bytes;
      if (kind == XR_FDR_CUSTOM_EVENT &&
          xr_fdr_is_args_event(p + XR_FDR_META_SIZE, (size_t)bytes)) {
        /* values whose record is not here: the runtime's, not shown */
        if (version >= 5)
          tsc += (uint64_t)(int64_t)get_i32(p + 5);
        break;
      }
      struct xr_tev e = {.kind = kind == XR_FDR_TYPED_EVENT ? XR_TEV_TYPED
                                                            : XR_TEV_CUSTOM,
                         .data = p + XR_FDR_META_SIZE,
                         .size = (size_t)bytes};
      if (kind == XR_FDR_CUSTOM_EVENT && version < 5) {
        e.tsc = xr_fdr_get64(p + 5); /* absolute; the base stays */
      } else {
        tsc += (uint64_t)(int64_t)get_i32(p + 5);
        e.tsc = tsc;
        if (kind == XR_FDR_TYPED_EVENT)
          e.event_type = (uint16_t)(p[9] | p[10] << 8);
      }
      fn(ctx, span, &e, cpu);
      break;
    }
    case XR_FDR_NEW_BUFFER:
    case XR_FDR_WALLTIME:
    case XR_FDR_CALL_ARGUMENT:
    case XR_FDR_BUFFER_EXTENTS:
    case XR_FDR_PID:
      break;
    default:
      return; /* not a record we know: the rest cannot be framed */
    }
    p += size;
  }
}

/* ---- the decoded event stream ------------------------------------------ */

struct to_writers {
  struct xr_trace_writers *w;
  bool joined;                    /* a log file the log writer joined */
  const struct xr_fdr_span *span; /* the span of the last record */
  uint64_t unwound;               /* exits of span still to mark unwound */
};

/* The runtime's own custom events, not the program's: the sync event
 * opening a thread's block of a joined log ("xray-sync", before any other
 * record, fdr_log_writer.c), and "xray-unwound N" before the N exits the
 * handlers or the log writer wrote for calls that unwinding skipped (in
 * the raw buffers too). */
static bool writers_event(struct to_writers *c, const struct xr_fdr_span *span,
                          const struct xr_tev *e) {
  bool first = c->span != span;
  if (first)
    c->unwound = 0;
  c->span = span;
  if (e->kind != XR_TEV_CUSTOM)
    return false;
  if (c->joined && first && e->size == 9 && memcmp(e->data, "xray-sync", 9) == 0)
    return true;
  uint64_t n = xr_fdr_unwound_count(e->data, e->size);
  c->unwound += n;
  return n != 0;
}

/* The exits that follow "xray-unwound N" are marked unwound; calls left
 * open on a stack anyway (an exit below them in a joined log closed them,
 * or the buffers end) the writers see for themselves. */
static void to_writers(void *ctx, const struct xr_fdr_span *span,
                       const struct xr_tev *e, uint16_t cpu) {
  (void)cpu;
  struct to_writers *c = ctx;
  if (writers_event(c, span, e))
    return;
  struct xr_tev ev = *e;
  if (c->unwound != 0 &&
      (e->kind == XR_TEV_EXIT || e->kind == XR_TEV_TAIL_EXIT)) {
    ev.unwound = true;
    c->unwound--;
  }
  xr_trace_writers_event(c->w, span->pid, span->tid, &ev);
}

/* The spans, ordered in place, through open writers. */
static void spans_to_writers(struct xr_trace_writers *w,
                             struct xr_fdr_span *spans, size_t n, int version,
                             bool joined) {
  xr_fdr_spans_order(spans, n, version);
  struct to_writers c = {w, joined, NULL, 0};
  for (size_t i = 0; i < n; i++)
    xr_fdr_span_decode(&spans[i], version, to_writers, &c);
}

/* The spans through the writers of outputs, opened and closed here. */
static int write_spans(const char *log_path, unsigned outputs, bool temp,
                       struct xr_fdr_span *spans, size_t n, int version,
                       uint64_t frequency_hz, bool joined,
                       const struct xr_trace_drop *drops, size_t n_drops) {
  struct xr_trace_writers w;
  if (xr_trace_writers_open(&w, outputs, log_path, frequency_hz,
                            XR_TRACE_IDS_DENSE, temp) == 0)
    return -1; /* reported */
  spans_to_writers(&w, spans, n, version, joined);
  xr_trace_writers_dropped(&w, xr_pid(), drops, n_drops);
  return xr_trace_writers_close(&w);
}

/* The next whole block of a file framed by BufferExtents (version 2+) at
 * *off, as a span; false at the end or at a block cut short. */
static bool next_block(const uint8_t *file, size_t size, size_t *off,
                       struct xr_fdr_span *span) {
  if (size - *off < XR_FDR_META_SIZE)
    return false;
  const uint8_t *p = file + *off;
  uint64_t bytes = xr_fdr_get64(p + 1);
  if (p[0] != ((XR_FDR_BUFFER_EXTENTS << 1) | 1) ||
      bytes > size - *off - XR_FDR_META_SIZE)
    return false;
  *span = (struct xr_fdr_span){p + XR_FDR_META_SIZE, (size_t)bytes, 0, 0, 0};
  *off += XR_FDR_META_SIZE + (size_t)bytes;
  return true;
}

int xr_fdr_image_to_writers(struct xr_trace_writers *w, const uint8_t *file,
                            size_t size, struct xr_fdr_span *spans,
                            size_t max_spans) {
  int version = size >= XR_FDR_FILE_HEADER_SIZE ? file[0] | file[1] << 8 : 0;
  if (version < 2)
    return -1;
  size_t n = 0, off = XR_FDR_FILE_HEADER_SIZE;
  while (n < max_spans && next_block(file, size, &off, &spans[n]))
    n++;
  spans_to_writers(w, spans, n, version, true);
  return (int)n;
}

int xr_fdr_write_streams(const char *log_path, unsigned outputs,
                         struct xr_fdr_span *spans, size_t n, int version,
                         uint64_t frequency_hz,
                         const struct xr_trace_drop *drops, size_t n_drops) {
  return write_spans(log_path, outputs, false, spans, n, version,
                     frequency_hz, false, drops, n_drops);
}

int xr_fdr_file_write_streams(const char *log_path, unsigned outputs,
                              uint64_t frequency_hz) {
  int fd = open(log_path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < XR_FDR_FILE_HEADER_SIZE) {
    xr_report(XR_ERROR, "xray-fdr: cannot read '%s' back for its trace files: %s",
              log_path, fd < 0 ? strerror(errno) : "too short");
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED) {
    xr_report(XR_ERROR, "xray-fdr: cannot map '%s' for its trace files: %s",
              log_path, strerror(errno));
    return -1;
  }
  int version = file[0] | file[1] << 8;
  /* Version 2+ frames every block with BufferExtents; version 1 blocks
   * have no length in front, so a version 1 file gets no trace files. */
  size_t cap = 0, n = 0;
  struct xr_fdr_span *spans = NULL;
  int rc = version >= 2 ? 0 : -1;
  size_t off = XR_FDR_FILE_HEADER_SIZE;
  struct xr_fdr_span span;
  /* Not a whole block: keep the ones before it. */
  while (rc == 0 && next_block(file, size, &off, &span)) {
    struct xr_fdr_span *v = xr_mmap_array_grow(spans, &cap, n, sizeof *v, 64);
    if (v == NULL) {
      rc = -1;
      break;
    }
    spans = v;
    spans[n++] = span;
  }
  if (rc == 0)
    rc = write_spans(log_path, outputs, true, spans, n, version, frequency_hz,
                     true, NULL, 0);
  else
    xr_report(XR_ERROR, "xray-fdr: no trace files for '%s': %s", log_path,
              version >= 2 ? "out of memory" : "FDR version 1 file");
  if (spans != NULL)
    munmap(spans, cap * sizeof *spans);
  munmap(file, size);
  return rc;
}
