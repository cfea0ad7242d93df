/* The finalized buffers as a file: the header, the iterator
 * __xray_log_process_buffers walks, and the log flush writes (joined per
 * thread by fdr_log_writer.c, or the buffers as they are without memory
 * to order them).
 * Control path only, after finalize. */
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/clock/clock_lean.h"
#include "core/modes/budget_hooks.h"
#include "core/modes/log_registry.h"
#include "core/names/object_map.h"
#include "core/objects/objects.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/thread/thread.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_file.h"
#include "fdr/fdr_log_writer.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_state.h"

#include <limits.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uint8_t file_header[XR_FDR_FILE_HEADER_SIZE];
/* Written when no buffer holds data (nothing recorded): readers reject a
 * file that is only a header, so an empty run gets one buffer that is only a
 * preamble (NewCPUId last: valid), framed as the version requires. */
static uint8_t empty_buffer[XR_FDR_PREFIX + XR_FDR_PREAMBLE_V5 +
                            XR_FDR_META_SIZE];
static size_t empty_buffer_size;

static void build_empty_buffer(void) {
  struct timespec wall;
  clock_gettime(CLOCK_MONOTONIC, &wall);
  int version = xr_fdr_hot.version;
  uint8_t *p = empty_buffer + (version >= 2 ? XR_FDR_PREFIX : 0);
  uint8_t *end = xr_fdr_preamble(p, version, xr_tid(), xr_pid(), wall.tv_sec,
                                 (int32_t)(wall.tv_nsec / 1000),
                                 (uint16_t)xr_cpu_id(), xr_now());
  if (version >= 2)
    xr_fdr_buffer_extents(empty_buffer, (uint64_t)(end - p));
  else
    end = xr_fdr_end_of_buffer(end);
  empty_buffer_size = (size_t)(end - empty_buffer);
}

void xr_fdr_file_prepare(uint64_t buffer_size) {
  xr_fdr_file_header(file_header, (uint16_t)xr_fdr_hot.version,
                     xr_clock.constant_tsc, xr_clock.nonstop_tsc,
                     xr_clock.frequency_hz, buffer_size);
  build_empty_buffer();
}

/* The bytes that represent buffer i in a file: v5 prefixes BufferExtents
 * (in the reserved bytes before the data), v1 appends EndOfBuffer (in the
 * bytes kept free at the end). Only after finalize. */
static XRayBuffer buffer_bytes(size_t i) {
  struct xr_fdr_buffer *b = &xr_fdr_queue.buffers[i];
  uint64_t extents = b->flush_extents;
  if (xr_fdr_hot.version >= 2) {
    xr_fdr_buffer_extents(b->data - XR_FDR_PREFIX, extents);
    return (XRayBuffer){b->data - XR_FDR_PREFIX, XR_FDR_PREFIX + extents};
  }
  xr_fdr_end_of_buffer(b->data + extents);
  return (XRayBuffer){b->data, extents + XR_FDR_META_SIZE};
}

XRayBuffer xr_fdr_iterator(XRayBuffer previous) {
  if (xr_lifecycle_status(&xr_fdr_lifecycle) != XRAY_LOG_FINALIZED)
    return (XRayBuffer){NULL, 0};
  if (previous.Data == NULL)
    return (XRayBuffer){file_header, sizeof file_header};
  bool none_used = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0) >= xr_fdr_queue.count;
  if (previous.Data == file_header && none_used)
    return (XRayBuffer){empty_buffer, empty_buffer_size};
  if (previous.Data == empty_buffer)
    return (XRayBuffer){NULL, 0};
  size_t from = 0;
  if (previous.Data != file_header) {
    size_t i = xr_fdr_queue_index_of(&xr_fdr_queue, previous.Data);
    if (i >= xr_fdr_queue.count)
      return (XRayBuffer){NULL, 0};
    from = i + 1;
  }
  size_t next = xr_fdr_queue_next_flushed(&xr_fdr_queue, from);
  if (next >= xr_fdr_queue.count)
    return (XRayBuffer){NULL, 0};
  return buffer_bytes(next);
}

/* The kept buffers as spans ordered by thread then time (mmap'd; *bytes
 * to unmap), or NULL when there is none or no memory (*n = 0). */
static struct xr_fdr_span *kept_spans(size_t *n, size_t *bytes) {
  size_t count = 0;
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1))
    count++;
  *n = 0;
  *bytes = (count ? count : 1) * sizeof(struct xr_fdr_span);
  if (count == 0)
    return NULL;
  struct xr_fdr_span *spans = mmap(NULL, *bytes, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (spans == MAP_FAILED)
    return NULL;
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1))
    spans[(*n)++] = (struct xr_fdr_span){xr_fdr_queue.buffers[i].data,
                                         xr_fdr_queue.buffers[i].flush_extents,
                                         0, 0, 0};
  xr_fdr_spans_order(spans, *n, xr_fdr_hot.version);
  return spans;
}

/* Writes the header and every buffer the iterator hands out, as they are
 * (no memory to order the buffers). Returns 0, or -1
 * on failure (errno set); *whole = bytes up to the end of the last complete
 * buffer, *buffers = how many. */
static int write_raw(int fd, uint64_t *whole, uint64_t *buffers) {
  *buffers = 0;
  *whole = 0;
  for (XRayBuffer b = xr_fdr_iterator((XRayBuffer){NULL, 0}); b.Data;
       b = xr_fdr_iterator(b)) {
    if (xr_write_all(fd, b.Data, b.Size) != 0)
      return -1;
    *whole += b.Size;
    if (b.Data != file_header)
      ++*buffers;
  }
  return 0;
}

/* RLIMIT_FSIZE in bytes: the log stops short of it (the kernel would raise
 * SIGXFSZ, which kills the program by default). */
static uint64_t file_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  return (uint64_t)rl.rlim_cur;
}

/* Writes the log: one block per thread, ordered and nested for llvm-xray
 * (fdr_log_writer.c, version 5 and 1); else the buffers as they are. A write
 * that fails (disk full, RLIMIT_FSIZE) leaves the file cut back to the last
 * whole block, so what is there stays readable; with none it is removed.
 * Then the trace files beside it, when asked for. */
void xr_fdr_file_write(unsigned outputs) {
  char path[PATH_MAX];
  int fd = xr_open_log_file(path, sizeof path);
  if (fd < 0)
    return; /* reported by xr_open_log_file */
  size_t n, bytes;
  struct xr_fdr_span *spans = kept_spans(&n, &bytes);
  uint64_t whole = 0, kept = 0;
  int rc;
  bool blocks = false;
  if (spans != NULL) {
    struct xr_fdr_log_stats st;
    /* No I/O thread from _exit (maybe in a signal handler) nor in a fork
     * child (until exec, only async-signal-safe calls are sure there). */
    bool serial = xr_registry_in_exit_call() ||
                  __atomic_load_n(&xr_process_forked, __ATOMIC_RELAXED);
    rc = serial ? xr_fdr_write_log(fd, file_header, spans, n, NULL,
                                   file_limit(), &st)
                : xr_fdr_write_log_pipelined(fd, file_header, spans, n,
                                             file_limit(), &st);
    whole = st.whole_bytes;
    kept = st.whole_blocks;
    blocks = kept > 0;
    uint64_t dropped_exits = st.dropped_exits + xr_fdr_writers_unmatched();
    xr_report(XR_INFO,
              "xray-fdr: %llu thread(s), %llu call(s) closed that unwinding "
              "(longjmp, exceptions) skipped, %llu exit(s) dropped whose "
              "entries the trace does not hold (the ring overwrote them, or "
              "the calls began before recording), %llu call(s) open at the end",
              (unsigned long long)st.blocks, (unsigned long long)st.closed,
              (unsigned long long)dropped_exits,
              (unsigned long long)st.open_at_end);
  } else {
    rc = write_raw(fd, &whole, &kept);
    blocks = kept > 0;
  }
  if (rc < 0) {
    int err = errno;
    if (blocks && ftruncate(fd, (off_t)whole) == 0) {
      xr_report(XR_ERROR,
                "xray-fdr: writing '%s' failed: %s; it keeps the %llu whole "
                "block(s) written before",
                path, strerror(err), (unsigned long long)kept);
    } else {
      unlink(path);
      xr_report(XR_ERROR, "xray-fdr: writing '%s' failed: %s; removed",
                path, strerror(err));
    }
  }
  close(fd);
  bool file_kept = kept > 0 && (rc == 0 || blocks);
  if ((outputs & XR_TRACE_OUT_XRAY) && file_kept)
    xr_object_map_write(path, true); /* only when shared objects registered */
  if ((file_kept || xr_trace_outputs_streamed(outputs)) && xr_budget_write_culled)
    xr_budget_write_culled(path); /* only when the budget ran */
  if (xr_trace_outputs_streamed(outputs)) {
    const struct xr_trace_drop drops[] = {
        {"events (no free buffer or too large)", xr_fdr_writers_dropped()},
        {"nested events (inside the tracer)", xr_fdr_writers_nested()},
        {"buffers overwritten (oldest records)",
         __atomic_load_n(&xr_fdr_queue.overwritten, __ATOMIC_RELAXED)}};
    xr_fdr_write_streams(path, outputs, spans, n, xr_fdr_hot.version,
                         xr_clock.frequency_hz, drops, XR_ARRAY_SIZE(drops));
  }
  if (spans != NULL)
    munmap(spans, bytes);
  if (!(outputs & XR_TRACE_OUT_XRAY))
    unlink(path); /* the name was taken for the trace files beside it */
}

/* True when some kept buffer holds a function record (byte 0 bit 0 clear);
 * stops at the first one, so it costs a few records in a normal log. */
bool xr_fdr_file_has_function_record(void) {
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1)) {
    const uint8_t *p = xr_fdr_queue.buffers[i].data;
    const uint8_t *end = p + xr_fdr_queue.buffers[i].flush_extents;
    while (p < end) {
      if ((p[0] & 1) == 0)
        return true;
      unsigned kind = p[0] >> 1;
      size_t size = XR_FDR_META_SIZE;
      if (kind == XR_FDR_CUSTOM_EVENT || kind == XR_FDR_TYPED_EVENT) {
        int32_t payload;
        memcpy(&payload, p + 1, sizeof payload);
        size += payload > 0 ? (size_t)payload : 0;
      }
      p += size;
    }
  }
  return false;
}

