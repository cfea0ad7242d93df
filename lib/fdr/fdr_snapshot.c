/* FDR snapshots: every thread's buffers, as they are now, copied while the
 * threads go on recording into memory mapped for the snapshot (its image);
 * then written once to a new file, joined per thread as the exit-time log
 * (fdr_snapshot_log.c). Without memory for the image, the buffers go
 * straight to the file as they are.
 *
 * Async-signal-safe throughout, so that one code path serves the API, a
 * signal handler and a crash handler: system calls only, no allocation (the
 * scratch memory is mapped with the buffers), no lock (a try-lock flag for
 * the normal slot; a crash has its own), no stdio (numbers and names are
 * formatted by hand).
 *
 * What a snapshot copies, and why it is consistent. The buffers are copied
 * straight from the queue to the image (or the file). Per buffer:
 * - free (given back, not yet taken again): its `extents` bytes are final
 *   until somebody takes it. Taking it is a CAS on `holder`, before any
 *   write to its data, and giving it back again bumps `release_seq`. So
 *   after the copy and a full barrier the buffer is read again: holder
 *   still free (or closed by finalize) and the same release_seq mean the
 *   bytes copied are the ones released; otherwise the image is cut back to
 *   before this buffer and the buffer counted as left out.
 * - held by another thread: its cursor (writer state) says how far records
 *   go, but the short-call erasure may still move the cursor back over the
 *   trailing run of plain enter records and write other records there.
 *   Bytes before the writer's run_start are never rewritten while the buffer
 *   is held (buffer_queue.h), so the copy ends at min(run_start, cursor)
 *   (the cursor alone when the threshold is 0: nothing is ever erased); the
 *   enters after it are cut and counted. The same re-read (same holder, same
 *   release_seq) proves the thread kept the buffer throughout.
 * - held by the calling thread: it is not writing (it is here), so all of
 *   it, up to its cursor: a crash snapshot ends with the crashing thread's
 *   last records, the crashing function's entry included.
 * Free buffers are written oldest first (release_seq), then the held ones:
 * each thread's buffers in the order it wrote them, as readers need. */
#include "core/clock/clock.h"
#include "core/base/heap_sort.h"
#include "core/base/report.h"
#include "core/clock/clock_lean.h"
#include "core/names/object_map.h"
#include "core/objects/objects.h"
#include "core/options/options.h"
#include "core/output/output.h"
#include "core/thread/thread.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_raw_text.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_snaptrace.h"
#include "fdr/fdr_snapshot.h"
#include "fdr/fdr_snapshot_log.h"
#include "fdr/fdr_snapshot_names.h"
#include "fdr/fdr_state.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* One diagnostic line like xr_report's, written raw (signal handlers). */
static void say_raw(enum xr_report_level level, const char *a, const char *b,
                    const char *c, const char *d, const char *e) {
  if ((int)level > __atomic_load_n(&xr_verbosity, __ATOMIC_RELAXED))
    return;
  char line[1200];
  struct text t = {line, 0, sizeof line - 1};
  put_str(&t, "==");
  put_i64(&t, xr_pid());
  put_str(&t, "==XRay: ");
  put_str(&t, a);
  put_str(&t, b);
  put_str(&t, c);
  put_str(&t, d);
  put_str(&t, e);
  line[t.len++] = '\n';
  for (size_t off = 0; off < t.len;) {
    ssize_t w = write(STDERR_FILENO, line + off, t.len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    off += (size_t)w;
  }
}

/* strerror is not async-signal-safe: the errors a snapshot meets, by name. */
static const char *error_text(int err) {
  switch (err) {
  case ENOSPC: return "no space left on device";
  case EDQUOT: return "disk quota exceeded";
  case EFBIG: return "file size limit (RLIMIT_FSIZE) reached";
  case EACCES: return "permission denied";
  case EPERM: return "operation not permitted";
  case ENOENT: return "no such directory";
  case ENOTDIR: return "a part of the path is not a directory";
  case EROFS: return "read-only file system";
  case EMFILE: case ENFILE: return "too many open files";
  case ENAMETOOLONG: return "file name too long";
  case EEXIST: return "file exists";
  case EIO: return "input/output error";
  default: return "error";
  }
}

/* ---- buffer order -------------------------------------------------------- */

struct entry {
  uint64_t key; /* release_seq for free buffers, UINT64_MAX for held ones */
  uint64_t seq;
  uintptr_t holder;
  uint64_t index;
};
_Static_assert(sizeof(struct entry) == XR_FDR_SCRATCH_ENTRY, "scratch entry");

static int by_key(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

/* ---- the image, or the file --------------------------------------------- */

struct out {
  int fd;
  uint8_t *image;  /* the snapshot's image; NULL: straight to fd */
  uint64_t offset; /* bytes written and kept */
  uint64_t room;   /* the image's size, or RLIMIT_FSIZE: the file may not
                      grow past this */
};

/* Writes all of iov, or fails with errno (EFBIG before the file size limit
 * is crossed, so the kernel never raises SIGXFSZ on the program). */
static int out_write(struct out *o, struct iovec *iov, int n) {
  uint64_t total = 0;
  for (int i = 0; i < n; i++)
    total += iov[i].iov_len;
  if (o->offset + total > o->room) {
    errno = EFBIG;
    return -1;
  }
  if (o->image != NULL) {
    for (int i = 0; i < n; i++) {
      memcpy(o->image + o->offset, iov[i].iov_base, iov[i].iov_len);
      o->offset += iov[i].iov_len;
    }
    return 0;
  }
  uint64_t done = 0;
  while (done < total) {
    ssize_t w = writev(o->fd, iov, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      return -1;
    }
    done += (uint64_t)w;
    o->offset += (uint64_t)w;
    /* Short write: skip what went out. */
    size_t left = (size_t)w;
    while (n > 0 && left >= iov[0].iov_len) {
      left -= iov[0].iov_len;
      iov++;
      n--;
    }
    if (n > 0) {
      iov[0].iov_base = (uint8_t *)iov[0].iov_base + left;
      iov[0].iov_len -= left;
    }
  }
  return 0;
}

/* Back to `offset`: drops what was written after it. */
static int out_cut(struct out *o, uint64_t offset) {
  if (o->image != NULL) {
    o->offset = offset;
    return 0;
  }
  if (ftruncate(o->fd, (off_t)offset) != 0 ||
      lseek(o->fd, (off_t)offset, SEEK_SET) != (off_t)offset)
    return -1;
  o->offset = offset;
  return 0;
}

struct counts {
  uint64_t buffers;    /* written */
  uint64_t left_out;   /* taken over by a writer while being copied */
  uint64_t cut_bytes;  /* unsettled enter records not copied */
  uint64_t in_switch;  /* held buffers caught mid-switch (only a preamble) */
  int32_t block_tid;   /* thread id for the metadata block (see there) */
  bool self_written;   /* the calling thread's buffer is in the file */
  uint64_t largest;    /* the largest block (v1: with its EndOfBuffer) */
};

static void note_block(struct counts *c, uint64_t bytes) {
  if (bytes > c->largest)
    c->largest = bytes;
}

static const char *kind_name(enum xr_fdr_snapshot_kind k) {
  switch (k) {
  case XR_SNAP_SIGNAL:
    return "signal";
  case XR_SNAP_CRASH:
    return "crash";
  case XR_SNAP_SLOW_CALL:
    return "slow_call";
  default:
    return "api";
  }
}

/* The last buffer: one custom event whose payload is a line of `key=value`
 * text (docs/fdr-mode.md, "Flight recorder"). It is stamped now, and goes to
 * a thread that has records in the file (the caller's, else the last
 * buffer's), so it is that thread's last block in time and in the file:
 * llvm-xray account wants each thread's times to grow, and a block of a
 * thread of its own, taken first, would raise the bar for every record. */
static int write_metadata(struct out *o, const struct xr_fdr_snapshot_why *why,
                          uint32_t number, struct counts *c, int version) {
  /* The image frames every block with BufferExtents (fdr_snapshot_log.h). */
  bool extents = version >= 2 || o->image != NULL;
  char line[384];
  struct text t = {line, 0, sizeof line};
  put_str(&t, "xray-snapshot number=");
  put_u64(&t, number);
  put_str(&t, " reason=");
  put_str(&t, kind_name(why->kind));
  if (why->kind == XR_SNAP_SIGNAL || why->kind == XR_SNAP_CRASH) {
    put_str(&t, " signal=");
    put_i64(&t, why->signo);
  }
  if (why->kind == XR_SNAP_SLOW_CALL) {
    put_str(&t, " function=");
    put_i64(&t, why->function);
    put_str(&t, " duration_us=");
    put_u64(&t, why->duration_us);
  }
  put_str(&t, " tid=");
  put_i64(&t, xr_tid());
  put_str(&t, " buffers=");
  put_u64(&t, c->buffers);
  put_str(&t, " buffers_left_out=");
  put_u64(&t, c->left_out);
  put_str(&t, " records_cut=");
  put_u64(&t, c->cut_bytes / XR_FDR_FN_SIZE);
  put_str(&t, " buffers_mid_switch=");
  put_u64(&t, c->in_switch);

  uint8_t rec[XR_FDR_PREFIX + XR_FDR_PREAMBLE_V5 + 2 * XR_FDR_META_SIZE];
  uint8_t *start = rec + (extents ? XR_FDR_PREFIX : 0);
  struct timespec wall;
  clock_gettime(CLOCK_MONOTONIC, &wall);
  uint64_t tsc = xr_now();
  int32_t tid = c->self_written || c->block_tid == 0 ? xr_tid() : c->block_tid;
  uint8_t *p = xr_fdr_preamble(start, version, tid, xr_pid(), wall.tv_sec,
                               (int32_t)(wall.tv_nsec / 1000),
                               (uint16_t)xr_cpu_id(), tsc);
  p = version >= 5 ? xr_fdr_custom_event(p, (int32_t)t.len, 0)
                   : xr_fdr_custom_event_v1(p, (int32_t)t.len, tsc);
  uint8_t eob[XR_FDR_META_SIZE];
  struct iovec iov[3];
  int n = 0;
  if (extents) {
    xr_fdr_buffer_extents(rec, (uint64_t)(p - start) + t.len);
    iov[n++] = (struct iovec){rec, (size_t)(p - rec)};
    iov[n++] = (struct iovec){line, t.len};
  } else {
    iov[n++] = (struct iovec){rec, (size_t)(p - rec)};
    iov[n++] = (struct iovec){line, t.len};
    xr_fdr_end_of_buffer(eob);
    iov[n++] = (struct iovec){eob, sizeof eob};
  }
  uint64_t before = o->offset;
  if (out_write(o, iov, n) == 0) {
    note_block(c, o->offset - before - (version >= 2 ? XR_FDR_META_SIZE : 0));
    return 0;
  }
  int err = errno;
  out_cut(o, before);
  errno = err;
  return -1;
}

/* A queue as one snapshot sees it: copied once, and valid while the epoch
 * it was read under stays (init writes a new queue only after finalize has
 * moved the epoch; xr_fdr_snapshot_enter keeps the old one mapped). */
struct view {
  struct xr_fdr_queue q;
  int version;
  bool erasing;
};

static bool same_owner(const struct xr_fdr_buffer *b, const struct entry *e) {
  uintptr_t h = __atomic_load_n(&b->holder, __ATOMIC_ACQUIRE);
  bool was_free = e->holder <= XR_FDR_BUFFER_CLOSED;
  bool is_free = h <= XR_FDR_BUFFER_CLOSED;
  return (was_free ? is_free : h == e->holder) &&
         __atomic_load_n(&b->release_seq, __ATOMIC_RELAXED) == e->seq;
}

/* Writes buffer `scanned` (see the top of the file); 0, or -1 with errno
 * for a file error. Its holder is read again here: a buffer its thread
 * gave back since the scan is written as a free one. */
static int write_buffer(struct out *o, const struct view *v,
                        const struct entry *scanned, struct counts *c) {
  const struct xr_fdr_buffer *b = &v->q.buffers[scanned->index];
  struct entry now = *scanned;
  now.holder = __atomic_load_n(&b->holder, __ATOMIC_ACQUIRE);
  now.seq = __atomic_load_n(&b->release_seq, __ATOMIC_RELAXED);
  const struct entry *e = &now;
  if (e->holder == XR_FDR_BUFFER_HELD)
    return 0; /* holder unknown (tests only) */
  uint8_t *data = b->data;
  uint8_t *limit = data + v->q.buffer_size;
  uint64_t n;
  if (e->holder > XR_FDR_BUFFER_HELD) {
    const struct xr_fdr_writer *w = (const struct xr_fdr_writer *)e->holder;
    uint8_t *cur = xr_fdr_state_cursor(__atomic_load_n(&w->state,
                                                        __ATOMIC_ACQUIRE));
    uint8_t *end = cur;
    if (w != xr_fdr_thread.writer && v->erasing) {
      uint8_t *run = xr_fdr_run_start(w);
      end = run < cur ? run : cur;
    }
    if (end < data || cur > limit) {
      c->in_switch++; /* between buffers: this one has only a preamble */
      return 0;
    }
    c->cut_bytes += (uint64_t)(cur - end);
    n = (uint64_t)(end - data);
  } else {
    n = __atomic_load_n(&((struct xr_fdr_buffer *)b)->extents, __ATOMIC_RELAXED);
    if (n > v->q.buffer_size)
      n = 0;
  }
  if (n == 0)
    return 0;
  uint64_t before = o->offset;
  uint8_t meta[XR_FDR_META_SIZE];
  struct iovec iov[2];
  if (v->version >= 2 || o->image != NULL) {
    xr_fdr_buffer_extents(meta, n);
    iov[0] = (struct iovec){meta, sizeof meta};
    iov[1] = (struct iovec){data, (size_t)n};
  } else {
    iov[0] = (struct iovec){data, (size_t)n};
    xr_fdr_end_of_buffer(meta);
    iov[1] = (struct iovec){meta, sizeof meta};
  }
  if (out_write(o, iov, 2) != 0) {
    int err = errno;
    out_cut(o, before); /* the file ends with a whole buffer */
    errno = err;
    return -1;
  }
  /* After a full barrier, anything a new holder wrote that the copy saw
   * was preceded by its CAS on holder, which this load now sees. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!same_owner(b, e)) {
    c->left_out++;
    return out_cut(o, before);
  }
  c->buffers++;
  note_block(c, v->version >= 2 ? n : n + XR_FDR_META_SIZE);
  c->block_tid = (int32_t)(xr_fdr_get64(data) >> 8); /* NewBuffer's tid */
  if (e->holder == (uintptr_t)xr_fdr_thread.writer && e->holder)
    c->self_written = true;
  return 0;
}

/* `<snapshot>.map` when shared objects registered: the records hold their
 * dense ids, and a crashed process never writes its exit log's map. From
 * the lines core rendered when the objects last changed; -1 said here. */
static int write_map(const char *name, char *map, size_t cap) {
  int rc = xr_object_map_write_ready(name, map, cap);
  if (rc < 0)
    say_raw(XR_ERROR, "xray-fdr: cannot write the object map '", name, ".map': ",
            error_text(errno), "; its shared objects' ids stay unnamed");
  return rc;
}

/* The same map for a trace the program made of the in-memory buffers. */
XR_API int __xray_fdr_object_map(const char *trace_path, char *map_path,
                                 size_t map_path_size) {
  int saved_errno = errno;
  char map[PATH_MAX];
  int rc = trace_path != NULL ? write_map(trace_path, map, sizeof map) : -1;
  if (map_path != NULL && map_path_size > 0) {
    struct text t = {map_path, 0, map_path_size};
    map_path[0] = 0;
    if (rc > 0)
      put_str(&t, map);
  }
  if (rc >= 0)
    errno = saved_errno;
  else if (trace_path == NULL)
    errno = EINVAL;
  return rc;
}

static XRaySnapshotStatus write_snapshot(const struct xr_fdr_snapshot_why *why,
                                         const struct view *v,
                                         enum xr_fdr_snapshot_slot slot,
                                         char *name, size_t cap) {
  uint32_t number = 0;
  int fd = xr_fdr_snapshot_open(name, cap, &number,
                                 slot == XR_SNAP_SLOT_CRASH);
  if (fd < 0) {
    say_raw(XR_ERROR, "xray-fdr: cannot create snapshot file '", name, "': ",
            error_text(errno), "; recording goes on");
    name[0] = 0;
    return XRAY_SNAPSHOT_FILE_ERROR;
  }
  uint64_t file_room = UINT64_MAX;
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    file_room = rl.rlim_cur;

  /* Which buffers, in which order: a scan of the holders, then the sort. */
  struct entry *e = (struct entry *)v->q.scratch[slot];
  size_t used = 0;
  for (size_t i = 0; i < v->q.count; i++) {
    struct xr_fdr_buffer *b = &v->q.buffers[i];
    uintptr_t h = __atomic_load_n(&b->holder, __ATOMIC_ACQUIRE);
    uint64_t seq = __atomic_load_n(&b->release_seq, __ATOMIC_RELAXED);
    if (h <= XR_FDR_BUFFER_CLOSED && seq == 0)
      continue; /* never used */
    if (h == XR_FDR_BUFFER_HELD)
      continue; /* holder unknown (tests only) */
    e[used++] = (struct entry){h > XR_FDR_BUFFER_HELD ? UINT64_MAX : seq, seq,
                               h, i};
  }
  xr_heap_sort(e, used, sizeof *e, by_key);

  /* The image: room for the header, every buffer found with its
   * BufferExtents, and the metadata block. Mapped per snapshot, so that
   * the file is written once, joined; none costs nothing between
   * snapshots. */
  size_t image_size = XR_FDR_FILE_HEADER_SIZE +
                      used * (XR_FDR_META_SIZE + v->q.buffer_size) + 4096;
  uint8_t *image = mmap(NULL, image_size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                            MAP_POPULATE, -1, 0);
  struct out o = {fd, NULL, 0, file_room};
  if (image != MAP_FAILED) {
    o.image = image;
    o.room = image_size;
  } else {
    image = NULL;
    say_raw(XR_ERROR, "xray-fdr: snapshot '", name, "' written as the "
            "buffers are (no memory to join them): llvm-xray convert and "
            "fdr-dump read it, account may not", "", "");
  }

  uint8_t header[XR_FDR_FILE_HEADER_SIZE];
  xr_fdr_file_header(header, (uint16_t)v->version, xr_clock.constant_tsc,
                     xr_clock.nonstop_tsc, xr_clock.frequency_hz,
                     (uint64_t)v->q.buffer_size);
  struct iovec hv = {header, sizeof header};
  struct counts c = {0, 0, 0, 0, 0, false, 0};
  int rc = out_write(&o, &hv, 1);
  for (size_t i = 0; rc == 0 && i < used; i++)
    rc = write_buffer(&o, v, &e[i], &c);
  if (rc == 0)
    rc = write_metadata(&o, why, number, &c, v->version);
  uint64_t threads = 0;
  if (rc == 0 && image != NULL)
    rc = xr_fdr_snapshot_join(fd, image, o.offset, v->q.scratch[slot],
                              v->q.count + 1, file_room, &threads);
  else if (rc == 0)
    rc = xr_fdr_snapshot_declare_largest(fd, c.largest);
  int err_no = errno;
  if (image != NULL)
    munmap(image, image_size);
  errno = err_no;

  XRaySnapshotStatus status = XRAY_SNAPSHOT_OK;
  if (rc != 0) {
    /* The file ends with a whole block (each is written in one piece or
     * cut back); with none, it is not worth keeping. */
    const char *err = error_text(errno);
    bool removed = image != NULL ? threads == 0 : c.buffers == 0;
    if (removed)
      unlink(name);
    say_raw(XR_ERROR, "xray-fdr: writing snapshot '", name, "' failed: ", err,
            removed ? "; removed; recording goes on"
                    : image != NULL ? "; it keeps the threads written before; "
                                      "recording goes on"
                                    : "; it keeps the buffers written before; "
                                      "recording goes on");
    if (removed)
      name[0] = 0;
    status = XRAY_SNAPSHOT_FILE_ERROR;
  } else {
    char what[160];
    struct text t = {what, 0, sizeof what};
    put_str(&t, "' (");
    put_str(&t, kind_name(why->kind));
    put_str(&t, "): ");
    put_u64(&t, c.buffers);
    put_str(&t, " buffers, ");
    put_u64(&t, c.left_out);
    put_str(&t, " left out, ");
    put_u64(&t, c.cut_bytes / XR_FDR_FN_SIZE);
    put_str(&t, " unsettled enter records cut");
    say_raw(XR_INFO, "xray-fdr: snapshot in '", name, what, "", "");
  }
  close(fd);
  if (name[0]) {
    char map[PATH_MAX];
    write_map(name, map, sizeof map);
  }
  if (slot == XR_SNAP_SLOT_NORMAL) {
    /* Whole (or removed): the trace side may read it now. A crash's file
     * gets none here: the process is ending. */
    xr_fdr_snapshot_names_done(number);
    xr_fdr_snaptrace_wake();
  }
  return status;
}

XRaySnapshotStatus xr_fdr_snapshot_write(const struct xr_fdr_snapshot_why *why,
                                         enum xr_fdr_snapshot_slot slot,
                                         char *path, size_t path_size) {
  int saved_errno = errno; /* a signal handler must leave errno as it was */
  if (path && path_size)
    path[0] = 0;
  if (!xr_fdr_snapshot_enter()) {
    say_raw(XR_INFO, "xray-fdr: no snapshot: FDR is not recording", "", "",
            "", "");
    errno = saved_errno;
    return XRAY_SNAPSHOT_NOT_RECORDING;
  }
  /* The queue, read between two loads of the epoch: a finalize in between
   * (the only way to a new queue) moves it, and the snapshot gives up. */
  struct view v;
  uint64_t epoch = __atomic_load_n(&xr_fdr_hot.epoch, __ATOMIC_ACQUIRE);
  /* Only the fields init sets: the counters change under the writers. */
  v.q = (struct xr_fdr_queue){.buffers = xr_fdr_queue.buffers,
                              .count = xr_fdr_queue.count,
                              .buffer_size = xr_fdr_queue.buffer_size,
                              .scratch = {xr_fdr_queue.scratch[0],
                                          xr_fdr_queue.scratch[1]}};
  v.version = xr_fdr_hot.version;
  v.erasing = xr_fdr_hot.threshold_ticks != 0;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  XRaySnapshotStatus status = XRAY_SNAPSHOT_NOT_RECORDING;
  if ((epoch & 1) &&
      __atomic_load_n(&xr_fdr_hot.epoch, __ATOMIC_ACQUIRE) == epoch) {
    char name[PATH_MAX];
    name[0] = 0;
    status = write_snapshot(why, &v, slot, name, sizeof name);
    if (path && path_size) {
      struct text t = {path, 0, path_size};
      put_str(&t, name);
    }
  }
  xr_fdr_snapshot_leave();
  errno = saved_errno;
  return status;
}
