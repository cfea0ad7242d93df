/* The FDR log file (version 5) as llvm-xray's account, stack and graph
 * need it (docs/formats.md, "What llvm-xray needs"):
 *
 *  - one block per thread: the reader orders a thread's blocks with a
 *    comparator that is wrong whenever a thread has more than 16 of them
 *    (it wants seconds AND microseconds of the Walltime to grow), so the
 *    thread's buffers, in time order, become the records of one block;
 *  - when several threads kept records, each of their blocks starts with
 *    a "sync" custom event at the earliest timestamp of the whole log:
 *    `account` rejects every record earlier than the first one it reads,
 *    and it reads threads in hash order, so every thread must start at the
 *    minimum (a thread whose calls were all erased needs none, and with
 *    one thread left the log is exactly its records, as compiler-rt's);
 *  - each thread's calls nest: an exit below the top of the call stack (a
 *    longjmp or an exception skipped the exits above) first closes the
 *    skipped calls at the same time, as basic mode does; an exit whose entry
 *    is not in the kept records (the ring overwrote it) closes what is open
 *    and is dropped.
 *
 * Streaming: records are decoded from the buffers and re-encoded through a
 * 1 MiB output buffer; a block's BufferExtents is patched with pwrite once
 * its size is known. Memory: that buffer and one call stack. */
#include "fdr/fdr_log.h"
#include "core/map_array.h"
#include "core/output.h"
#include "fdr/fdr_records.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define OUT_CAP ((size_t)1 << 20)

/* The sync event's payload. */
static const char sync_payload[] = "xray-sync";

struct writer {
  int fd;
  int err;
  uint64_t offset; /* file offset of out[0] */
  size_t len;
  uint8_t *out;
  /* encoder state of the current block */
  int cpu;         /* -1: no NewCPUId yet in this block */
  uint64_t base;   /* the reader's running timestamp */
  /* call stack of the current thread */
  int32_t *stack;
  size_t depth, cap;
  uint64_t untracked;
  struct xr_fdr_log_stats *stats;
};

static void flush_out(struct writer *w) {
  if (w->len == 0 || w->err)
    return;
  if (xr_write_all(w->fd, w->out, w->len) != 0)
    w->err = errno ? errno : EIO;
  w->offset += w->len;
  w->len = 0;
}

/* Room for n more bytes (n <= OUT_CAP) at the end of out. */
static uint8_t *room(struct writer *w, size_t n) {
  if (OUT_CAP - w->len < n)
    flush_out(w);
  return w->out + w->len;
}

static void advance(struct writer *w, uint8_t *end) {
  w->len = (size_t)(end - w->out);
}

static void put_bytes(struct writer *w, const void *data, size_t n) {
  const uint8_t *p = data;
  while (n > 0) {
    size_t k = n < OUT_CAP ? n : OUT_CAP;
    memcpy(room(w, k), p, k);
    w->len += k;
    p += k;
    n -= k;
  }
}

/* NewCPUId / TSCWrap as the reader needs them; returns the delta. */
static uint32_t stamp(struct writer *w, uint16_t cpu, uint64_t tsc) {
  if (w->cpu != (int)cpu) {
    advance(w, xr_fdr_new_cpu(room(w, XR_FDR_META_SIZE), cpu, tsc));
    w->cpu = cpu;
    w->base = tsc;
  } else if (tsc < w->base || tsc - w->base > INT32_MAX) {
    advance(w, xr_fdr_tsc_wrap(room(w, XR_FDR_META_SIZE), tsc));
    w->base = tsc;
  }
  uint32_t delta = (uint32_t)(tsc - w->base);
  w->base = tsc;
  return delta;
}

static void put_function(struct writer *w, int32_t fid, unsigned kind,
                         uint16_t cpu, uint64_t tsc) {
  uint32_t delta = stamp(w, cpu, tsc);
  advance(w, xr_fdr_function(room(w, XR_FDR_FN_SIZE), fid, kind, delta));
}

static bool push(struct writer *w, int32_t fid) {
  if (w->untracked == 0 && w->depth == w->cap) {
    int32_t *s = xr_map_array_grow(w->stack, &w->cap, w->depth,
                                   sizeof *w->stack, 1024);
    if (s == NULL) {
      w->untracked++;
      return false;
    }
    w->stack = s;
  } else if (w->untracked != 0) {
    w->untracked++;
    return false;
  }
  w->stack[w->depth++] = fid;
  return true;
}

static void on_record(void *ctx, const struct xr_fdr_span *span,
                      const struct xr_tev *e, uint16_t cpu) {
  (void)span;
  struct writer *w = ctx;
  switch (e->kind) {
  case XR_TEV_ENTER:
    push(w, e->fid);
    if (e->has_arg) {
      put_function(w, e->fid, XR_FDR_FN_ENTER_ARG, cpu, e->tsc);
      advance(w, xr_fdr_call_argument(room(w, XR_FDR_META_SIZE), e->arg));
    } else {
      put_function(w, e->fid, XR_FDR_FN_ENTER, cpu, e->tsc);
    }
    return;
  case XR_TEV_EXIT:
  case XR_TEV_TAIL_EXIT: {
    if (w->untracked != 0) {
      w->untracked--;
      put_function(w, e->fid,
                   e->kind == XR_TEV_EXIT ? XR_FDR_FN_EXIT
                                          : XR_FDR_FN_TAIL_EXIT,
                   cpu, e->tsc);
      return;
    }
    size_t i = w->depth;
    while (i > 0 && w->stack[i - 1] != e->fid)
      i--;
    /* Calls above the match (all, when there is none) lost their exits. */
    while (w->depth > i) {
      put_function(w, w->stack[--w->depth], XR_FDR_FN_EXIT, cpu, e->tsc);
      w->stats->closed++;
    }
    if (i == 0) {
      w->stats->dropped_exits++; /* entered before the kept records */
      return;
    }
    w->depth--;
    put_function(w, e->fid,
                 e->kind == XR_TEV_EXIT ? XR_FDR_FN_EXIT : XR_FDR_FN_TAIL_EXIT,
                 cpu, e->tsc);
    return;
  }
  case XR_TEV_CUSTOM:
  case XR_TEV_TYPED: {
    int32_t delta = (int32_t)stamp(w, cpu, e->tsc);
    uint8_t *p = room(w, XR_FDR_META_SIZE);
    if (e->kind == XR_TEV_TYPED)
      p = xr_fdr_typed_event(p, (int32_t)e->size, delta, e->event_type);
    else
      p = xr_fdr_custom_event(p, (int32_t)e->size, delta);
    advance(w, p);
    put_bytes(w, e->data, e->size);
    return;
  }
  }
}

/* The span's Walltime record (the thread's first buffer), or zeros. */
static void walltime_of(const struct xr_fdr_span *s, uint8_t out[16]) {
  memset(out, 0, 16);
  out[0] = (XR_FDR_WALLTIME << 1) | 1;
  for (size_t off = 0; off + XR_FDR_META_SIZE <= s->size && off < 64;
       off += XR_FDR_META_SIZE)
    if (s->data[off] == ((XR_FDR_WALLTIME << 1) | 1)) {
      memcpy(out, s->data + off, 16);
      return;
    }
}

static void first_cpu_of(const struct xr_fdr_span *s, uint16_t *cpu) {
  *cpu = 0;
  for (size_t off = 0; off + XR_FDR_META_SIZE <= s->size && off < 64;
       off += XR_FDR_META_SIZE)
    if (s->data[off] == ((XR_FDR_NEW_CPU << 1) | 1)) {
      *cpu = (uint16_t)(s->data[off + 1] | s->data[off + 2] << 8);
      return;
    }
}

/* True when the span holds a function record or an event, what `account`
 * reads (rule 1); false for a preamble alone or one whose calls were all
 * erased. Stops at the first one. */
static bool has_record(const struct xr_fdr_span *s) {
  const uint8_t *p = s->data, *end = s->data + s->size;
  while (end - p >= XR_FDR_META_SIZE) {
    unsigned kind = p[0] >> 1;
    if ((p[0] & 1) == 0 || kind == XR_FDR_CUSTOM_EVENT ||
        kind == XR_FDR_TYPED_EVENT)
      return true;
    p += XR_FDR_META_SIZE;
  }
  return false;
}

int xr_fdr_write_log(int fd, const uint8_t header[32],
                     const struct xr_fdr_span *spans, size_t n,
                     struct xr_fdr_log_stats *stats) {
  memset(stats, 0, sizeof *stats);
  struct writer w = {.fd = fd, .stats = stats};
  w.out = mmap(NULL, OUT_CAP, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (w.out == MAP_FAILED) {
    errno = ENOMEM;
    return -1;
  }
  /* The earliest timestamp of the log: where every block's sync sits. */
  uint64_t t0 = UINT64_MAX;
  size_t threads = 0; /* threads that kept a record */
  bool counted = false;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || spans[i].pid != spans[i - 1].pid ||
        spans[i].tid != spans[i - 1].tid)
      counted = false;
    if (!has_record(&spans[i]))
      continue;
    if (spans[i].first_tsc < t0)
      t0 = spans[i].first_tsc;
    if (!counted)
      threads++;
    counted = true;
  }
  if (threads < 2)
    t0 = UINT64_MAX; /* one thread: its first record is the earliest */
  put_bytes(&w, header, XR_FDR_FILE_HEADER_SIZE);
  stats->whole_bytes = XR_FDR_FILE_HEADER_SIZE;
  for (size_t i = 0; i < n && !w.err;) {
    size_t j = i;
    while (j < n && spans[j].pid == spans[i].pid && spans[j].tid == spans[i].tid)
      j++;
    /* One block for spans[i, j): one thread. */
    uint64_t block_start = w.offset + w.len;
    uint8_t wall[16];
    uint16_t cpu;
    walltime_of(&spans[i], wall);
    first_cpu_of(&spans[i], &cpu);
    uint8_t *p = room(&w, 4 * XR_FDR_META_SIZE);
    p = xr_fdr_buffer_extents(p, 0); /* patched below */
    p = xr_fdr_new_buffer(p, spans[i].tid);
    memcpy(p, wall, 16);
    p = xr_fdr_pid(p + 16, spans[i].pid);
    advance(&w, p);
    w.cpu = -1;
    w.depth = 0;
    w.untracked = 0;
    bool kept = false;
    for (size_t k = i; k < j && !kept; k++)
      kept = has_record(&spans[k]);
    if (t0 != UINT64_MAX && kept) {
      stamp(&w, cpu, t0);
      advance(&w, xr_fdr_custom_event(room(&w, XR_FDR_META_SIZE),
                                      (int32_t)(sizeof sync_payload - 1), 0));
      put_bytes(&w, sync_payload, sizeof sync_payload - 1);
    } else {
      stamp(&w, cpu, spans[i].first_tsc); /* a block must not end in Pid */
    }
    for (size_t k = i; k < j; k++)
      xr_fdr_span_decode(&spans[k], 5, on_record, &w);
    stats->open_at_end += w.depth + w.untracked;
    uint64_t end = w.offset + w.len;
    uint64_t extents = end - block_start - XR_FDR_META_SIZE;
    /* Written out at every block's end, so that a failure leaves whole
     * blocks (the caller cuts the file back to whole_bytes). */
    if (block_start >= w.offset) { /* still in the buffer */
      xr_fdr_buffer_extents(w.out + (block_start - w.offset), extents);
      flush_out(&w);
    } else {
      uint8_t rec[XR_FDR_META_SIZE];
      xr_fdr_buffer_extents(rec, extents);
      flush_out(&w);
      if (!w.err && pwrite(fd, rec, sizeof rec, (off_t)block_start) !=
                        (ssize_t)sizeof rec)
        w.err = errno ? errno : EIO;
    }
    if (!w.err) {
      stats->whole_bytes = end;
      stats->whole_blocks++;
    }
    stats->blocks++;
    i = j;
  }
  flush_out(&w);
  if (w.stack != NULL)
    munmap(w.stack, w.cap * sizeof *w.stack);
  munmap(w.out, OUT_CAP);
  if (w.err) {
    errno = w.err;
    return -1;
  }
  return 0;
}
