/* A snapshot written as the log llvm-xray account, stack and graph read:
 * one block per thread, calls that nest, the sync event (fdr_log_writer.c).
 *
 * fdr_snapshot.c first copies the buffers into memory mapped for the
 * snapshot, each checked against a thread that took it over meanwhile.
 * That image no longer changes, so its blocks are ordered here by thread
 * and time in the slot's scratch memory and written once, by the log
 * writer, into the snapshot's file. Without memory for the image, the
 * snapshot is written as the buffers are (convert and fdr-dump read it);
 * its header then declares its largest block (the metadata block may
 * exceed a small buffer_size). Async-signal-safe: writev, pwrite,
 * ftruncate; no allocation, no lock. */
#include "fdr/buffer_queue.h"
#include "fdr/fdr_log_writer.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_snapshot_log.h"

#include <errno.h>
#include <unistd.h>

/* NOLINTNEXTLINE(misc-redundant-expression): two headers' names for one size, tied */
_Static_assert(XR_FDR_SCRATCH_LOG == XR_FDR_LOG_SCRATCH, "log scratch size");
_Static_assert(sizeof(struct xr_fdr_span) == XR_FDR_SCRATCH_ENTRY,
               "a span fits a scratch entry");

int xr_fdr_snapshot_join(int fd, const uint8_t *image, uint64_t size,
                         uint8_t *scratch, size_t max_spans, uint64_t limit,
                         uint64_t *whole_threads) {
  *whole_threads = 0;
  struct xr_fdr_span *spans = (struct xr_fdr_span *)scratch;
  size_t n = 0;
  uint64_t off = XR_FDR_FILE_HEADER_SIZE;
  while (size - off >= XR_FDR_META_SIZE && n < max_spans) {
    const uint8_t *p = image + off;
    uint64_t bytes = xr_fdr_get64(p + 1);
    if (p[0] != ((XR_FDR_BUFFER_EXTENTS << 1) | 1) ||
        bytes > size - off - XR_FDR_META_SIZE)
      break;
    spans[n++] = (struct xr_fdr_span){p + XR_FDR_META_SIZE, (size_t)bytes,
                                      0, 0, 0};
    off += XR_FDR_META_SIZE + bytes;
  }
  if (size < XR_FDR_FILE_HEADER_SIZE || off != size) {
    errno = EINVAL; /* not the image fdr_snapshot.c made */
    return -1;
  }
  xr_fdr_spans_order(spans, n, image[0] | image[1] << 8);
  struct xr_fdr_log_stats st;
  int rc = xr_fdr_write_log(fd, image, spans, n,
                            scratch + max_spans * XR_FDR_SCRATCH_ENTRY, limit,
                            &st);
  *whole_threads = st.whole_blocks;
  if (rc != 0) {
    int err = errno;
    if (ftruncate(fd, (off_t)st.whole_bytes) != 0)
      *whole_threads = 0;
    errno = err;
  }
  return rc;
}

int xr_fdr_snapshot_declare_largest(int fd, uint64_t largest) {
  uint8_t header[XR_FDR_FILE_HEADER_SIZE];
  if (pread(fd, header, sizeof header, 0) != (ssize_t)sizeof header)
    return -1;
  if (largest <= xr_fdr_get64(header + 16))
    return 0;
  xr_fdr_put64(header + 16, largest);
  return pwrite(fd, header + 16, 8, 16) == 8 ? 0 : -1;
}
