/* Basic mode's records as the decoded event stream (export/trace_formats.h):
 * the closed log file read back at flush, 1 MiB at a time, and handed to
 * every stream format trace_output names (`<log>.json`, `<log>.pftrace`), so memory
 * stays bounded by that buffer and the writers' own state, whatever the
 * size of the log. An event goes out once the payloads after its record
 * are read (basic_values.h): compiler-rt's argument (has_arg), or the
 * values argument capture took (xr_tev.call: an entry's arguments, an
 * exit's return value). */
#include "basic/basic_export.h"
#include "basic/basic_records.h"
#include "basic/basic_values.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/output/output.h"
#include "core/thread/thread.h"
#include "export/trace_formats.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The record read last, held until the payloads after it are read. */
struct pending {
  bool held;
  int32_t pid, tid;
  struct xr_tev e;
  struct xr_basic_values_reader values;
};

static void send(struct xr_trace_writers *w, struct pending *p) {
  if (!p->held)
    return;
  p->held = false;
  p->e.call = p->values.call.count != 0 ? &p->values.call : NULL;
  xr_trace_writers_event(w, p->pid, p->tid, &p->e);
}

/* A payload after the record it belongs to (same function, thread and
 * process, as llvm-xray requires), else ignored. */
static void add_payload(struct pending *p, const struct xr_basic_record *r) {
  if (!p->held || (int32_t)(r->w[0] >> 32) != p->e.fid ||
      (int32_t)(uint32_t)r->w[1] != p->tid || (int32_t)(r->w[1] >> 32) != p->pid)
    return;
  uint64_t bits;
  enum xr_basic_payload kind = xr_basic_values_take(&p->values, r, &bits);
  if (kind == XR_BASIC_PAYLOAD_ARG1 && p->e.kind == XR_TEV_ENTER && !p->e.has_arg) {
    p->e.has_arg = true;
    p->e.arg = bits;
  }
}

static void add_records(struct xr_trace_writers *w, struct pending *held,
                        const uint8_t *p, size_t count) {
  for (size_t i = 0; i < count; i++, p += sizeof(struct xr_basic_record)) {
    struct xr_basic_record r;
    memcpy(&r, p, sizeof r);
    if ((r.w[0] & 0xffff) == 1) {
      add_payload(held, &r);
      continue;
    }
    if ((r.w[0] & 0xffff) != 0)
      continue;
    unsigned type = (unsigned)(r.w[0] >> 24) & 0xff;
    struct xr_tev e = {.fid = (int32_t)(r.w[0] >> 32), .tsc = r.w[1]};
    if (type == XR_BASIC_ENTRY || type == XR_BASIC_ENTRY_ARGS)
      e.kind = XR_TEV_ENTER;
    else if (type == XR_BASIC_EXIT)
      e.kind = XR_TEV_EXIT;
    else if (type == XR_BASIC_TAIL)
      e.kind = XR_TEV_TAIL_EXIT;
    else
      continue;
    e.unwound = e.kind != XR_TEV_ENTER &&
                (p[XR_BASIC_FLAGS_OFFSET] & XR_BASIC_FLAG_UNWOUND) != 0;
    send(w, held);
    held->held = true;
    held->pid = (int32_t)(r.w[2] >> 32);
    held->tid = (int32_t)(uint32_t)r.w[2];
    held->e = e;
    xr_basic_values_reset(&held->values);
  }
}

int xr_basic_write_streams(const char *log_path, unsigned outputs,
                           const struct xr_trace_drop *drops, size_t n) {
  int fd = open(log_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    xr_report(XR_ERROR, "basic mode: cannot read %s back for its trace files: %s",
              log_path, strerror(errno));
    return -1;
  }
  /* 1 MiB of records at a time (the log may be far larger than memory). */
  size_t cap = (size_t)32768 * sizeof(struct xr_basic_record);
  uint8_t *chunk = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct xr_trace_writers writers;
  struct xr_trace_writers *w = &writers;
  struct pending held = {.held = false};
  int rc = -1;
  if (chunk != MAP_FAILED &&
      xr_trace_writers_open(w, outputs, log_path, xr_clock.frequency_hz,
                            XR_TRACE_IDS_PACKED, false) != 0) {
    off_t off = (off_t)sizeof(struct xr_file_header);
    for (;;) {
      ssize_t got = pread(fd, chunk, cap, off);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        xr_report(XR_ERROR, "basic mode: reading %s back failed: %s; its "
                  "trace files stop there", log_path, strerror(errno));
      if (got <= 0)
        break;
      size_t whole = (size_t)got / sizeof(struct xr_basic_record);
      if (whole == 0)
        break;
      add_records(w, &held, chunk, whole);
      off += (off_t)(whole * sizeof(struct xr_basic_record));
    }
    send(w, &held);
    xr_trace_writers_dropped(w, xr_pid(), drops, n);
    rc = xr_trace_writers_close(w);
  } else if (chunk == MAP_FAILED) {
    xr_report(XR_ERROR, "basic mode: no memory to read %s back; its trace files are "
              "not written", log_path);
  }
  if (chunk != MAP_FAILED)
    munmap(chunk, cap);
  close(fd);
  return rc;
}
