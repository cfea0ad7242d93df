/* Basic mode's records as the decoded event stream (export/trace_formats.h):
 * the closed log file read back at flush, 1 MiB at a time, and handed to
 * every stream format trace_output names (`<log>.json`, `<log>.pftrace`), so memory
 * stays bounded by that buffer and the writers' own state, whatever the
 * size of the log. */
#include "basic/basic_export.h"
#include "basic/basic_records.h"
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

static void add_records(struct xr_trace_writers *w, const uint8_t *p, size_t count) {
  for (size_t i = 0; i < count; i++, p += sizeof(struct xr_basic_record)) {
    struct xr_basic_record r;
    memcpy(&r, p, sizeof r);
    if ((r.w[0] & 0xffff) != 0)
      continue; /* an argument payload: the call is its entry record */
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
    xr_trace_writers_event(w, (int32_t)(r.w[2] >> 32), (int32_t)(uint32_t)r.w[2],
                           &e);
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
      add_records(w, chunk, whole);
      off += (off_t)(whole * sizeof(struct xr_basic_record));
    }
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
