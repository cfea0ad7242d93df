/* A snapshot rewritten as the log llvm-xray account, stack and graph read:
 * one block per thread, calls that nest, the sync event (fdr_log_writer.c).
 *
 * fdr_snapshot.c first writes the buffers as they are, each checked against
 * a thread that took it over meanwhile. That file no longer changes, so it
 * is read back here (mmap), its blocks ordered by thread and time in the
 * slot's scratch memory, and written again by the log writer into
 * `<snapshot>.tmp`, which is renamed over the snapshot when whole. On any
 * failure the snapshot stays as first written (convert and fdr-dump read
 * it), as does a version 1 snapshot; their header then declares their
 * largest block (the metadata block may exceed a small buffer_size).
 * Async-signal-safe: mmap, open, writev, pread, pwrite, rename, unlink,
 * close; no allocation, no lock. */
#include "fdr/buffer_queue.h"
#include "fdr/fdr_log_writer.h"
#include "fdr/fdr_raw_text.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_snapshot_log.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename */
#include <sys/mman.h>
#include <unistd.h>

/* NOLINTNEXTLINE(misc-redundant-expression): two headers' names for one size, tied */
_Static_assert(XR_FDR_SCRATCH_LOG == XR_FDR_LOG_SCRATCH, "log scratch size");
_Static_assert(sizeof(struct xr_fdr_span) == XR_FDR_SCRATCH_ENTRY,
               "a span fits a scratch entry");

/* Joins the snapshot (see xr_fdr_snapshot_finish); 0 or -1 with errno. */
static int join(int fd, uint64_t size, const char *name, uint8_t *scratch,
                size_t max_spans, uint64_t limit) {
  struct xr_fdr_log_stats st;
  const uint8_t *file =
      mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (file == MAP_FAILED)
    return -1;
  struct xr_fdr_span *spans = (struct xr_fdr_span *)scratch;
  size_t n = 0;
  uint64_t off = XR_FDR_FILE_HEADER_SIZE;
  while (size - off >= XR_FDR_META_SIZE && n < max_spans) {
    const uint8_t *p = file + off;
    uint64_t bytes = xr_fdr_get64(p + 1);
    if (p[0] != ((XR_FDR_BUFFER_EXTENTS << 1) | 1) ||
        bytes > size - off - XR_FDR_META_SIZE)
      break;
    spans[n++] = (struct xr_fdr_span){p + XR_FDR_META_SIZE, (size_t)bytes,
                                      0, 0, 0};
    off += XR_FDR_META_SIZE + bytes;
  }
  int rc = -1;
  char tmp[PATH_MAX];
  struct text t = {tmp, 0, sizeof tmp};
  put_str(&t, name);
  put_str(&t, ".tmp");
  if (off != size) {
    errno = EINVAL; /* not the file fdr_snapshot.c wrote */
  } else if (t.len + 1 >= sizeof tmp) {
    errno = ENAMETOOLONG;
  } else {
    xr_fdr_spans_order(spans, n, 5);
    int out;
    do
      out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    while (out < 0 && errno == EINTR);
    if (out >= 0) {
      rc = xr_fdr_write_log(out, file, spans, n,
                            scratch + max_spans * XR_FDR_SCRATCH_ENTRY, limit,
                            &st);
      int err = errno;
      close(out);
      if (rc == 0 && rename(tmp, name) != 0) {
        err = errno;
        rc = -1;
      }
      if (rc != 0)
        unlink(tmp);
      errno = err;
    }
  }
  int err = errno;
  munmap((void *)file, size);
  errno = err;
  return rc;
}

int xr_fdr_snapshot_finish(int fd, uint64_t size, const char *name,
                           int version, uint64_t largest, uint8_t *scratch,
                           size_t max_spans, uint64_t limit) {
  int rc = 0;
  if (version >= 5) {
    rc = join(fd, size, name, scratch, max_spans, limit);
    if (rc == 0)
      return 0;
  }
  int err = errno;
  uint8_t header[XR_FDR_FILE_HEADER_SIZE];
  if (pread(fd, header, sizeof header, 0) == (ssize_t)sizeof header &&
      largest > xr_fdr_get64(header + 16)) {
    xr_fdr_put64(header + 16, largest);
    if (pwrite(fd, header + 16, 8, 16) != 8 && rc == 0) {
      err = errno;
      rc = -1;
    }
  }
  errno = err;
  return rc;
}
