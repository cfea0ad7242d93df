/* Basic and FDR logs -> the event stream. See trace_read.h; the formats
 * byte by byte are in docs/formats.md. */
#include "trace_read.h"
#include "basic/basic_values.h"
#include "fdr/fdr_arg_records.h"
#include "fdr/fdr_records.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
  HEADER_BYTES = 32,
  BASIC_RECORD = 32,
  BASIC_FLAG_UNWOUND = 1, /* byte 24 of a function record, ours */
};
#define PROFILE_MAGIC 0x7872617970726f66ull
#define PROFILE_VERSION 0x20180424ull

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return xr_fdr_get32(p); }
static uint64_t get64(const uint8_t *p) { return xr_fdr_get64(p); }

int ctl_trace_identify(struct ctl_in *in, struct ctl_trace_info *info) {
  memset(info, 0, sizeof *info);
  const uint8_t *h = ctl_in_at(in, 0, HEADER_BYTES);
  if (h == NULL)
    return ctl_in_fail(in, in->size, "too short for a trace header (32 bytes), "
                       "the file has %llu", (unsigned long long)in->size);
  if (get64(h) == PROFILE_MAGIC) {
    if (get64(h + 8) != PROFILE_VERSION)
      return ctl_in_fail(in, 8, "profile version 0x%llx unknown (0x%llx is read)",
                         (unsigned long long)get64(h + 8), PROFILE_VERSION);
    info->kind = CTL_TRACE_PROFILE;
    info->pid = get64(h + 24);
    return 0;
  }
  int version = get16(h), type = get16(h + 2);
  if (type == 0 && version >= 1 && version <= 3) {
    info->kind = CTL_TRACE_BASIC;
  } else if (type == 1 && version >= 1 && version <= 5) {
    info->kind = CTL_TRACE_FDR;
  } else if (type == 0 || type == 1) {
    return ctl_in_fail(in, 0, "%s log version %d unknown (versions %s are read)",
                       type ? "FDR" : "basic", version, type ? "1 to 5" : "1 to 3");
  } else {
    return ctl_in_fail(in, 0, "not an XRay trace: no basic or FDR log header "
                       "(type %d) and no profile magic", type);
  }
  info->version = version;
  info->frequency_hz = get64(h + 8);
  if (info->frequency_hz == 0) /* llvm-xray would divide by it: say ns */
    info->frequency_hz = 1000000000u;
  const uint8_t *p = ctl_in_at(in, HEADER_BYTES, info->kind == CTL_TRACE_BASIC
                                                    ? BASIC_RECORD
                                                    : 6 * XR_FDR_META_SIZE);
  if (p != NULL && info->kind == CTL_TRACE_BASIC) {
    info->start_tsc = get64(p + 8);
  } else if (p != NULL) { /* the first NewCPUId of the first block */
    for (int i = 0; i < 6 && (p[0] & 1); i++, p += XR_FDR_META_SIZE)
      if (p[0] >> 1 == XR_FDR_NEW_CPU) {
        info->start_tsc = get64(p + 3);
        break;
      }
  }
  return 0;
}

/* ---- basic log ---------------------------------------------------------- */

/* A function record is held until the next record that is not one of its
 * argument records (record type 1, right after it, same function, thread
 * and process): compiler-rt's first argument (bytes 2 and 3 zero), or the
 * values argument capture took (lib/basic/basic_values.h reads them). */
struct pending {
  bool held;
  int32_t pid, tid;
  struct xr_tev e;
  struct xr_basic_values_reader values; /* e.call's, when it has values */
};

static void release(struct pending *p, ctl_event_fn fn, void *ctx) {
  if (p->held) {
    p->e.call = p->values.call.count != 0 ? &p->values.call : NULL;
    fn(ctx, p->pid, p->tid, &p->e);
  }
  p->held = false;
}

static int basic_events(struct ctl_in *in, ctl_event_fn fn, void *ctx) {
  uint64_t whole = (in->size - HEADER_BYTES) / BASIC_RECORD * BASIC_RECORD + HEADER_BYTES;
  if (whole != in->size)
    return ctl_in_fail(in, whole, "a record of 32 bytes runs past the end of "
                       "the file (%llu bytes)", (unsigned long long)in->size);
  struct pending p = {0};
  for (uint64_t off = HEADER_BYTES; off < in->size; off += BASIC_RECORD) {
    const uint8_t *r = ctl_in_at(in, off, BASIC_RECORD);
    if (r == NULL)
      return -1;
    uint16_t type = get16(r);
    if (type == 1) { /* argument of the record before it */
      bool ours = r[2] != 0 || r[3] != 0;
      if (!p.held || (int32_t)get32(r + 4) != p.e.fid || (int32_t)get32(r + 8) != p.tid) {
        release(&p, fn, ctx); /* not the record's: dropped */
      } else if (ours) {
        struct xr_basic_record rec;
        uint64_t bits;
        memcpy(&rec, r, sizeof rec);
        xr_basic_values_take(&p.values, &rec, &bits);
      } else {
        if (p.e.kind == XR_TEV_ENTER && p.values.call.count == 0) {
          p.e.has_arg = true;
          p.e.arg = get64(r + 16);
        }
        release(&p, fn, ctx);
      }
      continue;
    }
    if (type != 0)
      return ctl_in_fail(in, off, "record type %u unknown (0 function, 1 argument)",
                         type);
    release(&p, fn, ctx);
    static const enum xr_tev_kind kinds[4] = {XR_TEV_ENTER, XR_TEV_EXIT,
                                              XR_TEV_TAIL_EXIT, XR_TEV_ENTER};
    if (r[3] > 3)
      return ctl_in_fail(in, off + 3, "event type %u unknown (0 to 3)", r[3]);
    p.held = true;
    p.pid = (int32_t)get32(r + 20);
    p.tid = (int32_t)get32(r + 16);
    p.e = (struct xr_tev){.kind = kinds[r[3]],
                          .fid = (int32_t)get32(r + 4),
                          .tsc = get64(r + 8),
                          .unwound = (r[24] & BASIC_FLAG_UNWOUND) && (r[3] == 1 || r[3] == 2)};
    xr_basic_values_reset(&p.values);
  }
  release(&p, fn, ctx);
  return 0;
}

/* ---- FDR log ------------------------------------------------------------ */

/* One block: a thread's run of records (version 2+: a BufferExtents'
 * bytes; version 1: NewBuffer to EndOfBuffer). */
struct block {
  uint64_t off, end; /* its records, [off, end) */
  int32_t pid, tid;
  uint64_t first_tsc;
};

static int by_thread_then_time(const void *a, const void *b) {
  const struct block *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->first_tsc != y->first_tsc)
    return x->first_tsc < y->first_tsc ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* The bytes at off, when they lie in the buffer already (the common case:
 * one compare), else read. */
static inline const uint8_t *need(struct ctl_in *in, uint64_t off, size_t n) {
  if (off >= in->at && off - in->at + n <= in->len)
    return in->buf + (off - in->at);
  return ctl_in_at(in, off, n);
}

/* "xray-unwound N": N, else 0 (fdr_records.h writes it). */
static uint64_t unwound_count(const uint8_t *d, size_t n) {
  static const char prefix[] = "xray-unwound ";
  size_t k = sizeof prefix - 1;
  if (n <= k || n > k + 19 || memcmp(d, prefix, k) != 0)
    return 0;
  uint64_t v = 0;
  for (size_t i = k; i < n; i++) {
    if (d[i] < '0' || d[i] > '9')
      return 0;
    v = v * 10 + (uint64_t)(d[i] - '0');
  }
  return v;
}

/* The end of a run [from, p) of plain records taken at once, so that an
 * exit with a return value is read the long way (fdr_block): one record
 * sooner when the last is an exit that a custom event follows (its
 * "xray-args" event, maybe), or bytes not in the buffer yet (more: the
 * block goes on after stop). */
static inline const uint8_t *before_value(const uint8_t *p, const uint8_t *from,
                                          const uint8_t *stop, bool more) {
  if (p == from || ((p[-XR_FDR_FN_SIZE] >> 1) & 7) == XR_FDR_FN_ENTER)
    return p;
  if (p == stop ? !more : p[0] != ((XR_FDR_CUSTOM_EVENT << 1) | 1))
    return p;
  return p - XR_FDR_FN_SIZE;
}

struct fdr {
  struct ctl_in *in;
  int version;
  ctl_event_fn fn; /* NULL: the index pass of version 1 */
  ctl_calls_fn calls; /* NULL: plain records go to fn too */
  void *ctx;
};

static int past_end(struct ctl_in *in, uint64_t off, size_t n, uint64_t limit) {
  if (in->failed)
    return -1;
  return ctl_in_fail(in, off, "a record of %zu bytes runs past the end of "
                     "%s (byte %llu)", n, limit == in->size ? "the file" : "its block",
                     (unsigned long long)limit);
}

/* The CallArguments at off (up to limit) after an entry of kind 3:
 * compiler-rt's first argument (has_arg, arg), or the values argument
 * capture took, into c (e->call). Returns the offset after them. */
static uint64_t call_arguments(struct ctl_in *in, uint64_t off, uint64_t limit,
                               struct xr_tev *e, struct xr_arg_call *c) {
  const uint8_t *p;
  for (bool first = true; limit - off >= XR_FDR_META_SIZE &&
                          (p = need(in, off, XR_FDR_META_SIZE)) != NULL &&
                          p[0] == ((XR_FDR_CALL_ARGUMENT << 1) | 1);
       first = false, off += XR_FDR_META_SIZE) {
    if (xr_fdr_call_argument_take(p, first, &e->has_arg, &e->arg, c))
      e->call = c;
  }
  return off;
}

/* The "xray-args" event at off right after an entry with string values or
 * an exit: the strings' text, or the return value, into e's call c; the
 * running timestamp moves by its delta (version 5). Returns the offset
 * after it, or off when there is none there. */
static uint64_t args_event_after(struct fdr *f, uint64_t off, uint64_t limit, uint64_t *tsc,
                                 struct xr_tev *e, struct xr_arg_call *c) {
  struct ctl_in *in = f->in;
  const uint8_t *p;
  if (limit - off < XR_FDR_META_SIZE || (p = need(in, off, XR_FDR_META_SIZE)) == NULL ||
      p[0] != ((XR_FDR_CUSTOM_EVENT << 1) | 1))
    return off;
  int32_t size = (int32_t)get32(p + 1);
  int32_t delta = (int32_t)get32(p + 5);
  const uint8_t *d;
  /* the tag first: another event may be larger than this reads at once */
  if (size <= XR_ARGS_EVENT_TAG_LEN || (uint64_t)size > limit - off - XR_FDR_META_SIZE ||
      (d = need(in, off + XR_FDR_META_SIZE, XR_ARGS_EVENT_TAG_LEN + 1)) == NULL ||
      !xr_fdr_is_args_event(d, XR_ARGS_EVENT_TAG_LEN + 1) ||
      (d = need(in, off + XR_FDR_META_SIZE, (size_t)size)) == NULL)
    return off;
  if (xr_fdr_args_event_take(e->kind == XR_TEV_ENTER, c, d, (size_t)size))
    e->call = c;
  if (f->version >= 5)
    *tsc += (uint64_t)(int64_t)delta;
  return off + XR_FDR_META_SIZE + (uint64_t)size;
}

/* Decodes b's records from b->off up to b->end (version 1: up to its
 * EndOfBuffer, whose end goes into b->end). Version 1's index pass (no fn)
 * fills b's thread and first timestamp from its preamble. */
static int fdr_block(struct fdr *f, struct block *b) {
  struct ctl_in *in = f->in;
  uint64_t off = b->off, limit = b->end, tsc = 0, unwound = 0;
  bool first = true, v1 = f->version == 1;
  static const enum xr_tev_kind plain_kinds[3] = {XR_TEV_ENTER, XR_TEV_EXIT,
                                                  XR_TEV_TAIL_EXIT};
  struct xr_arg_call call; /* of the record being decoded (e.call) */
  struct xr_tev plain = {0}; /* reused: only kind, fid and tsc change */
  while (off < limit) {
    /* The common case first: enter, exit and tail-exit records already in
     * the buffer, with nothing to mark; anything else goes the long way. */
    if (f->fn && unwound == 0 && off >= in->at && off - in->at < in->len) {
      const uint8_t *p = in->buf + (off - in->at);
      uint64_t end = in->at + in->len < limit ? in->at + in->len : limit;
      const uint8_t *stop = p + (end - off);
      const uint8_t *from = p;
      if (f->calls) {
        while (stop - p >= XR_FDR_FN_SIZE && (p[0] & 1) == 0 &&
               ((p[0] >> 1) & 7) <= XR_FDR_FN_TAIL_EXIT)
          p += XR_FDR_FN_SIZE;
        p = before_value(p, from, stop, end < limit);
        if (p != from)
          tsc = f->calls(f->ctx, b->pid, b->tid, from,
                         (size_t)(p - from) / XR_FDR_FN_SIZE, tsc);
      } else {
        while (stop - p >= XR_FDR_FN_SIZE && (p[0] & 1) == 0) {
          uint32_t word = get32(p);
          unsigned kind = (word >> 1) & 7;
          if (kind > XR_FDR_FN_TAIL_EXIT ||
              (kind != XR_FDR_FN_ENTER &&
               before_value(p + XR_FDR_FN_SIZE, p, stop, end < limit) == p))
            break;
          tsc += get32(p + 4);
          plain.kind = plain_kinds[kind];
          plain.fid = (int32_t)(word >> 4);
          plain.tsc = tsc;
          f->fn(f->ctx, b->pid, b->tid, &plain);
          p += XR_FDR_FN_SIZE;
        }
      }
      if (p != from) {
        first = false;
        off += (uint64_t)(p - from);
        continue;
      }
    }
    const uint8_t *p = need(in, off, 1);
    if (p == NULL)
      return past_end(in, off, 1, limit);
    if ((p[0] & 1) == 0) { /* function record */
      if (limit - off < XR_FDR_FN_SIZE || (p = need(in, off, XR_FDR_FN_SIZE)) == NULL)
        return past_end(in, off, XR_FDR_FN_SIZE, limit);
      uint32_t word = get32(p);
      unsigned kind = (word >> 1) & 7;
      if (kind > XR_FDR_FN_ENTER_ARG)
        return ctl_in_fail(in, off, "function record of kind %u unknown (0 to 3)", kind);
      tsc += get32(p + 4);
      struct xr_tev e = {.fid = (int32_t)(word >> 4), .tsc = tsc};
      off += XR_FDR_FN_SIZE;
      e.kind = kind == XR_FDR_FN_EXIT        ? XR_TEV_EXIT
               : kind == XR_FDR_FN_TAIL_EXIT ? XR_TEV_TAIL_EXIT
                                             : XR_TEV_ENTER;
      if (kind == XR_FDR_FN_ENTER_ARG)
        off = call_arguments(in, off, limit, &e, &call);
      if (e.kind != XR_TEV_ENTER || (e.call != NULL && call.strings != 0))
        off = args_event_after(f, off, limit, &tsc, &e, &call);
      if (e.kind != XR_TEV_ENTER && unwound != 0) {
        e.unwound = true;
        unwound--;
      }
      first = false;
      if (f->fn)
        f->fn(f->ctx, b->pid, b->tid, &e);
      continue;
    }
    if (limit - off < XR_FDR_META_SIZE || (p = need(in, off, XR_FDR_META_SIZE)) == NULL)
      return past_end(in, off, XR_FDR_META_SIZE, limit);
    unsigned kind = p[0] >> 1;
    uint64_t at = off;
    off += XR_FDR_META_SIZE;
    switch (kind) {
    case XR_FDR_NEW_BUFFER:
      if (v1 && !f->fn)
        b->tid = (int32_t)get32(p + 1);
      break;
    case XR_FDR_END_OF_BUFFER:
      if (!v1)
        return ctl_in_fail(in, at, "EndOfBuffer record in a version %d log "
                           "(version 1 only)", f->version);
      b->end = off;
      return 0;
    case XR_FDR_NEW_CPU:
      tsc = get64(p + 3);
      if (v1 && !f->fn && b->first_tsc == 0)
        b->first_tsc = tsc;
      break;
    case XR_FDR_TSC_WRAP:
      tsc = get64(p + 1);
      break;
    case XR_FDR_CUSTOM_EVENT:
    case XR_FDR_TYPED_EVENT: {
      int32_t size = (int32_t)get32(p + 1);
      if (kind == XR_FDR_TYPED_EVENT && f->version < 5)
        return ctl_in_fail(in, at, "typed event in a version %d log (version 5 "
                           "only)", f->version);
      if (size < 0 || (uint64_t)size > limit - off)
        return ctl_in_fail(in, at, "event of %d bytes runs past the end of "
                           "%s (byte %llu)", size, limit == in->size ? "the file" : "its block",
                           (unsigned long long)limit);
      struct xr_tev e = {.kind = kind == XR_FDR_TYPED_EVENT ? XR_TEV_TYPED
                                                            : XR_TEV_CUSTOM,
                         .size = (size_t)size};
      if (kind == XR_FDR_CUSTOM_EVENT && f->version < 5) {
        e.tsc = get64(p + 5); /* absolute; the running time stays */
      } else {
        tsc += (uint64_t)(int64_t)(int32_t)get32(p + 5);
        e.tsc = tsc;
        if (kind == XR_FDR_TYPED_EVENT)
          e.event_type = get16(p + 9);
      }
      if (f->fn) {
        const uint8_t *d = size ? need(in, off, (size_t)size) : p;
        if (d == NULL)
          return past_end(in, off, (size_t)size, limit);
        e.data = d;
        uint64_t n = kind == XR_FDR_CUSTOM_EVENT ? unwound_count(d, e.size) : 0;
        bool sync = first && e.size == 9 && memcmp(d, "xray-sync", 9) == 0;
        /* values whose record is not before them: the runtime's, not shown */
        bool values = kind == XR_FDR_CUSTOM_EVENT && xr_fdr_is_args_event(d, e.size);
        unwound += n;
        if (n == 0 && !sync && !values)
          f->fn(f->ctx, b->pid, b->tid, &e);
      }
      first = false;
      off += (uint64_t)size;
      break;
    }
    case XR_FDR_WALLTIME:
    case XR_FDR_CALL_ARGUMENT: /* one not after its entry: nothing to add to */
      break;
    case XR_FDR_PID:
      if (v1 && !f->fn)
        b->pid = (int32_t)get32(p + 1);
      break;
    case XR_FDR_BUFFER_EXTENTS:
      if (v1)
        return ctl_in_fail(in, at, "BufferExtents record in a version 1 log");
      return ctl_in_fail(in, at, "BufferExtents record inside a block");
    default:
      return ctl_in_fail(in, at, "metadata record of kind %u unknown", kind);
    }
  }
  if (v1)
    return ctl_in_fail(in, limit, "the last block has no EndOfBuffer record: "
                       "the file is cut short");
  return 0;
}

/* Version 2+: every block's BufferExtents, and its preamble for the
 * thread and the first timestamp. */
static int index_extents(struct fdr *f, struct block *b, uint64_t off) {
  struct ctl_in *in = f->in;
  const uint8_t *p = ctl_in_at(in, off, XR_FDR_META_SIZE);
  if (p == NULL)
    return past_end(in, off, XR_FDR_META_SIZE, in->size);
  if (p[0] != ((XR_FDR_BUFFER_EXTENTS << 1) | 1))
    return ctl_in_fail(in, off, "expected a BufferExtents record (0x0f), found "
                       "0x%02x", p[0]);
  uint64_t bytes = get64(p + 1);
  if (bytes > in->size - off - XR_FDR_META_SIZE)
    return ctl_in_fail(in, off, "a block of %llu bytes runs past the end of the "
                       "file (%llu bytes)", (unsigned long long)bytes,
                       (unsigned long long)in->size);
  *b = (struct block){.off = off + XR_FDR_META_SIZE,
                      .end = off + XR_FDR_META_SIZE + bytes};
  size_t head = bytes < 4 * XR_FDR_META_SIZE ? (size_t)bytes : 4 * XR_FDR_META_SIZE;
  p = ctl_in_at(in, b->off, head);
  if (p == NULL)
    return -1;
  for (size_t i = 0; i + XR_FDR_META_SIZE <= head && (p[i] & 1); i += XR_FDR_META_SIZE) {
    unsigned kind = p[i] >> 1;
    if (kind == XR_FDR_NEW_BUFFER)
      b->tid = (int32_t)get32(p + i + 1);
    else if (kind == XR_FDR_PID)
      b->pid = (int32_t)get32(p + i + 1);
    else if (kind == XR_FDR_NEW_CPU) {
      b->first_tsc = get64(p + i + 3);
      break;
    }
  }
  return 0;
}

/* One worker of a split decode: the blocks of the threads given to it. */
struct worker {
  struct ctl_in own; /* workers after the first read through their own buffer */
  struct ctl_in *in;
  struct fdr f;
  const struct block *blocks;
  const uint8_t *part_of;
  size_t n;
  unsigned part;
  int rc;
};

static void *run_worker(void *arg) {
  struct worker *w = arg;
  for (size_t i = 0; i < w->n && w->rc == 0; i++) {
    if (w->part_of[i] != w->part)
      continue;
    struct block b = w->blocks[i];
    if (w->f.version == 1)
      b.end = w->in->size; /* it stops at its EndOfBuffer again */
    w->rc = fdr_block(&w->f, &b);
  }
  return NULL;
}

/* Gives each thread's run of blocks to the part with the fewest bytes so
 * far (runs taken in file order: good enough for a few parts). */
static void assign_parts(const struct block *blocks, size_t n, unsigned parts,
                         uint8_t *part_of) {
  uint64_t load[CTL_TRACE_PARTS_MAX] = {0};
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t bytes = 0;
    for (; j < n && blocks[j].pid == blocks[i].pid && blocks[j].tid == blocks[i].tid; j++)
      bytes += blocks[j].end - blocks[j].off + 1;
    unsigned k = 0;
    for (unsigned p = 1; p < parts; p++)
      if (load[p] < load[k])
        k = p;
    load[k] += bytes;
    for (; i < j; i++)
      part_of[i] = (uint8_t)k;
  }
}

static int fdr_events(struct ctl_in *in, int version, unsigned parts, ctl_event_fn fn,
                      ctl_calls_fn calls, void *const *ctxs) {
  struct fdr f = {in, version, NULL, NULL, NULL};
  struct block *blocks = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (uint64_t off = HEADER_BYTES; off < in->size && rc == 0;) {
    if (version == 1 && need(in, off, 1) != NULL && *need(in, off, 1) == 0) {
      off++; /* zero padding after a buffer's EndOfBuffer */
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      struct block *bigger = realloc(blocks, cap * sizeof *bigger);
      if (bigger == NULL) {
        rc = ctl_in_fail(in, off, "out of memory for the index of %zu blocks", n);
        break;
      }
      blocks = bigger;
    }
    struct block *b = &blocks[n];
    *b = (struct block){.off = off, .end = in->size};
    if (version == 1) {
      const uint8_t *p = need(in, off, 1);
      if (p != NULL && p[0] != ((XR_FDR_NEW_BUFFER << 1) | 1))
        rc = ctl_in_fail(in, off, "expected a NewBuffer record (0x01), found 0x%02x",
                         p[0]);
      else
        rc = fdr_block(&f, b);
    } else {
      rc = index_extents(&f, b, off);
    }
    if (rc == 0) {
      off = b->end;
      n++;
    }
  }
  uint8_t *part_of = rc == 0 ? calloc(n + 1, 1) : NULL;
  if (rc == 0 && part_of == NULL)
    rc = ctl_in_fail(in, 0, "out of memory for the index of %zu blocks", n);
  if (rc == 0) {
    if (n > 1)
      qsort(blocks, n, sizeof *blocks, by_thread_then_time);
    /* a part per thread at most */
    size_t runs = n != 0;
    for (size_t i = 1; i < n; i++)
      runs += blocks[i].pid != blocks[i - 1].pid || blocks[i].tid != blocks[i - 1].tid;
    if (runs < parts)
      parts = (unsigned)(runs ? runs : 1);
    if (parts > 1)
      assign_parts(blocks, n, parts, part_of);
    struct worker w[CTL_TRACE_PARTS_MAX];
    pthread_t thread[CTL_TRACE_PARTS_MAX];
    bool started[CTL_TRACE_PARTS_MAX] = {false};
    for (unsigned k = 0; k < parts; k++) {
      w[k] = (struct worker){.in = in, .f = {in, version, fn, calls, ctxs[k]}, .blocks = blocks,
                             .part_of = part_of, .n = n, .part = k};
      if (k == 0)
        continue;
      /* a worker of its own: its buffer; the file the same (pread) */
      w[k].in = &w[k].own;
      w[k].f.in = &w[k].own;
      w[k].rc = ctl_in_open(&w[k].own, in->fd, in->path);
      started[k] = w[k].rc == 0 && pthread_create(&thread[k], NULL, run_worker, &w[k]) == 0;
      if (!started[k] && w[k].rc == 0)
        run_worker(&w[k]); /* no thread: in turn */
    }
    run_worker(&w[0]);
    rc = w[0].rc;
    for (unsigned k = 1; k < parts; k++) {
      if (started[k])
        pthread_join(thread[k], NULL);
      /* the error found first in the file is the one said */
      if (w[k].rc != 0 && (!in->failed || w[k].own.err_offset < in->err_offset)) {
        in->failed = false;
        ctl_in_fail(in, w[k].own.err_offset, "%s", w[k].own.err);
        rc = -1;
      }
      ctl_in_close(&w[k].own);
    }
  }
  free(part_of);
  free(blocks);
  return rc;
}

int ctl_trace_events(struct ctl_in *in, const struct ctl_trace_info *info,
                     ctl_event_fn fn, void *ctx) {
  void *ctxs[1] = {ctx};
  return ctl_trace_events_split(in, info, 1, fn, NULL, ctxs);
}

int ctl_trace_events_split(struct ctl_in *in, const struct ctl_trace_info *info,
                           unsigned parts, ctl_event_fn fn, ctl_calls_fn calls,
                           void *const *ctxs) {
  if (info->kind == CTL_TRACE_BASIC)
    return basic_events(in, fn, ctxs[0]);
  if (info->kind == CTL_TRACE_FDR) {
    if (parts < 1 || parts > CTL_TRACE_PARTS_MAX)
      parts = 1;
    return fdr_events(in, info->version, parts, fn, calls, ctxs);
  }
  return ctl_in_fail(in, 0, "a profile has calls, not events");
}
