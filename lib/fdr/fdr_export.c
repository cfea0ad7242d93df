/* FDR buffers -> decoded records, per thread in time order; the Chrome
 * trace entry point. See fdr_export.h. */
#include "fdr/fdr_export.h"
#include "core/heap_sort.h"
#include "core/map_array.h"
#include "core/output.h"
#include "core/report.h"
#include "core/thread.h"
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

void xr_fdr_span_decode(const struct xr_fdr_span *span, int version,
                        xr_fdr_record_fn fn, void *ctx) {
  const uint8_t *p = span->data, *end = span->data + span->size;
  uint64_t tsc = 0;
  uint16_t cpu = 0;
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
        if (end - p >= XR_FDR_META_SIZE && (p[0] >> 1) == XR_FDR_CALL_ARGUMENT &&
            (p[0] & 1)) {
          e.has_arg = true;
          e.arg = xr_fdr_get64(p + 1);
          p += XR_FDR_META_SIZE;
        }
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

/* ---- Chrome trace ------------------------------------------------------- */

struct to_chrome {
  struct xr_chrome *w;
  bool skip_sync;                 /* a joined log: leave out its sync events */
  const struct xr_fdr_span *span; /* the span of the last record */
};

/* The log writer's sync event (fdr_log_writer.c) opens a thread's block:
 * a custom event "xray-sync" before any other record. Not the program's. */
static bool is_sync(struct to_chrome *c, const struct xr_fdr_span *span,
                    const struct xr_tev *e) {
  bool first = c->span != span;
  c->span = span;
  return c->skip_sync && first && e->kind == XR_TEV_CUSTOM && e->size == 9 &&
         memcmp(e->data, "xray-sync", 9) == 0;
}

static void to_chrome(void *ctx, const struct xr_fdr_span *span,
                      const struct xr_tev *e, uint16_t cpu) {
  (void)cpu;
  struct to_chrome *c = ctx;
  if (!is_sync(c, span, e))
    xr_chrome_add(c->w, span->pid, span->tid, e);
}

/* The spans through w (opened with names), then closes both. */
static int write_spans(struct xr_chrome *w, void *names,
                       struct xr_fdr_span *spans, size_t n, int version,
                       bool joined) {
  xr_fdr_spans_order(spans, n, version);
  struct to_chrome c = {w, joined, NULL};
  for (size_t i = 0; i < n; i++)
    xr_fdr_span_decode(&spans[i], version, to_chrome, &c);
  int rc = xr_chrome_close(w);
  xr_chrome_self_names_close(names);
  return rc;
}

int xr_fdr_write_chrome(const char *log_path, struct xr_fdr_span *spans,
                        size_t n, int version, uint64_t frequency_hz) {
  void *names = xr_chrome_self_names_open();
  struct xr_chrome *w =
      xr_chrome_open(log_path, frequency_hz, xr_chrome_dense_name, names);
  if (w == NULL) {
    xr_chrome_self_names_close(names);
    return -1;
  }
  return write_spans(w, names, spans, n, version, false);
}

/* A snapshot's JSON is written as `<snap>.json.part` and renamed when
 * whole: it appears while the program runs, and whoever waits for
 * `<snap>.json` never reads half of it. */
static int write_chrome_renamed(const char *log_path,
                                struct xr_fdr_span *spans, size_t n,
                                int version, uint64_t frequency_hz) {
  char part[PATH_MAX], done[PATH_MAX];
  int len = snprintf(done, sizeof done, "%s.json", log_path);
  if (len < 0 || (size_t)len >= sizeof done) {
    xr_report(XR_ERROR, "xray-fdr: no .json for '%s': name too long",
              log_path);
    return -1;
  }
  int fd = xr_open_sibling_temp(log_path, ".json.part", part, sizeof part);
  if (fd < 0)
    return -1; /* reported */
  void *names = xr_chrome_self_names_open();
  /* Messages name the file the user will find, not the temporary one. */
  struct xr_chrome *w = xr_chrome_open_fd(fd, done, frequency_hz,
                                          xr_chrome_dense_name, names);
  int rc = -1;
  if (w == NULL) {
    close(fd);
    xr_chrome_self_names_close(names);
  } else {
    rc = write_spans(w, names, spans, n, version, true);
  }
  if (rc == 0 && rename(part, done) != 0) {
    xr_report(XR_ERROR, "xray-fdr: cannot rename '%s' to '%s': %s", part,
              done, strerror(errno));
    rc = -1;
  }
  if (rc != 0)
    unlink(part);
  return rc;
}

int xr_fdr_file_write_chrome(const char *log_path, uint64_t frequency_hz) {
  int fd = open(log_path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < XR_FDR_FILE_HEADER_SIZE) {
    xr_report(XR_ERROR, "xray-fdr: cannot read '%s' back for its .json: %s",
              log_path, fd < 0 ? strerror(errno) : "too short");
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED) {
    xr_report(XR_ERROR, "xray-fdr: cannot map '%s' for its .json: %s",
              log_path, strerror(errno));
    return -1;
  }
  int version = file[0] | file[1] << 8;
  /* Version 2+ frames every block with BufferExtents; version 1 blocks
   * have no length in front, so a version 1 file gets no JSON. */
  size_t cap = 0, n = 0;
  struct xr_fdr_span *spans = NULL;
  int rc = version >= 2 ? 0 : -1;
  size_t off = XR_FDR_FILE_HEADER_SIZE;
  while (rc == 0 && size - off >= XR_FDR_META_SIZE) {
    const uint8_t *p = file + off;
    uint64_t bytes = xr_fdr_get64(p + 1);
    if (p[0] != ((XR_FDR_BUFFER_EXTENTS << 1) | 1) ||
        bytes > size - off - XR_FDR_META_SIZE)
      break; /* not a whole block: keep the ones before it */
    struct xr_fdr_span *v = xr_map_array_grow(spans, &cap, n, sizeof *v, 64);
    if (v == NULL) {
      rc = -1;
      break;
    }
    spans = v;
    spans[n++] = (struct xr_fdr_span){p + XR_FDR_META_SIZE, (size_t)bytes,
                                      0, 0, 0};
    off += XR_FDR_META_SIZE + (size_t)bytes;
  }
  if (rc == 0)
    rc = write_chrome_renamed(log_path, spans, n, version, frequency_hz);
  else
    xr_report(XR_ERROR, "xray-fdr: no .json for '%s': %s", log_path,
              version >= 2 ? "out of memory" : "FDR version 1 file");
  if (spans != NULL)
    munmap(spans, cap * sizeof *spans);
  munmap(file, size);
  return rc;
}
