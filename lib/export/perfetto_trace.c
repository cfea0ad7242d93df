/* Perfetto trace writer. See perfetto_trace.h.
 *
 * Field numbers are those of google/perfetto's protos/perfetto/trace/
 * (trace.proto, trace_packet.proto, trace_packet_defaults.proto,
 * clock_snapshot.proto, interned_data/interned_data.proto, track_event/
 * track_event.proto, track_descriptor.proto, process_descriptor.proto,
 * thread_descriptor.proto, debug_annotation.proto); the enum values of
 * TrackEvent.Type, TracePacket.SequenceFlags and BuiltinClock too.
 *
 * Packets are written top-down, straight into the output: each one's size
 * is computed first (sz_* below), so no message is assembled apart and a
 * name of any length is copied once. The hot packets (a plain begin or end,
 * nearly every packet) are short enough to be written in place in the
 * output buffer and their one-byte lengths filled in after. */
#include "export/perfetto_trace.h"
#include "core/base/report.h"
#include "core/output/text_out.h"
#include "export/arg_text.h"
#include "export/pb_encode.h"
#include "export/trace_threads.h"
#include "xray/xray_version.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Trace */
enum { TRACE_PACKET = 1 };
/* TracePacket */
enum {
  PK_CLOCK_SNAPSHOT = 6,
  PK_TIMESTAMP = 8,
  PK_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
  PK_TRACK_EVENT = 11,
  PK_INTERNED_DATA = 12,
  PK_SEQUENCE_FLAGS = 13,
  PK_TIMESTAMP_CLOCK_ID = 58,
  PK_DEFAULTS = 59,
  PK_TRACK_DESCRIPTOR = 60
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1 };
/* TracePacketDefaults, TrackEventDefaults */
enum { DEF_TIMESTAMP_CLOCK_ID = 58, DEF_TRACK_EVENT = 11, TED_TRACK_UUID = 11 };
/* ClockSnapshot, ClockSnapshot.Clock */
enum { CS_CLOCKS = 1, CS_PRIMARY_TRACE_CLOCK = 2 };
enum { CLK_ID = 1, CLK_TIMESTAMP = 2, CLK_INCREMENTAL = 3 };
enum { BUILTIN_CLOCK_BOOTTIME = 6, SEQUENCE_CLOCK = 64 /* 64-127: scoped */ };
/* TrackEvent */
enum {
  TE_DEBUG_ANNOTATION = 4,
  TE_TYPE = 9,
  TE_NAME_IID = 10,
  TE_TRACK_UUID = 11,
  TE_NAME = 23
};
enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3 };
/* InternedData, EventName */
enum { ID_EVENT_NAMES = 2, EN_IID = 1, EN_NAME = 2 };
/* DebugAnnotation */
enum { DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10 };
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
enum { TD_UUID = 1, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5 };
enum { PD_PID = 1, PD_NAME = 6, PD_LABELS = 8 };
enum { THD_PID = 1, THD_TID = 2, THD_NAME = 5 };

enum { GLOBAL_SEQUENCE = 1 };

/* Custom and typed events' payloads are cut after this many bytes (and
 * marked): a payload is shown, not archived. */
#define PAYLOAD_MAX 4096u
#define OUT_CAP ((size_t)256 * 1024)
#define RUNTIME_LABEL "xray runtime " XRAY_RUNTIME_VERSION

struct interned {
  int32_t fid;
  uint32_t iid; /* 0: an empty slot */
};

struct thread {
  struct xr_trace_thread base; /* first: the table's record */
  uint32_t seq;
  uint64_t uuid;
  uint64_t last_ns;   /* the sequence's clock: the last timestamp written */
  uint64_t no_entry;  /* calls written as no-entry so far */
  struct interned *names;
  size_t name_cap, name_count;
  /* The bytes every hot packet holds after its timestamp: the sequence id
   * field and the key of track_event (at most 7 bytes, stored as 8). */
  uint8_t tail[8];
  uint8_t tail_len;
};

struct process {
  int32_t pid;
  bool used;
};

/* floor(d * 1e9 / f) without a 128-bit division (a tenth of the writer's
 * time): q = (d * mul) >> shift with mul = floor(1e9 * 2^shift / f), the
 * largest shift that keeps mul in 64 bits. For d < 2^shift the estimate is
 * at most 1 short: d*1e9/f - d*mul/2^shift = d * e / 2^shift with e < 1.
 * So the remainder r = d*1e9 - q*f is in [0, 2f), exact in 64-bit
 * wrap-around arithmetic when f <= 2^63, and one comparison makes q exact.
 * Other d (or f) take the division. */
struct ns_scale {
  uint64_t mul;
  unsigned shift;
  uint64_t fast_max; /* the largest d of the fast form; 0 with f > 2^63 */
};

struct xr_perfetto {
  int fd;
  char path[PATH_MAX];
  struct xr_trace_context c;
  uint32_t next_seq;
  uint64_t max_tsc; /* the latest time of any thread */
  bool any_tsc;
  /* The exit being handled, when it has a return value: its function and
   * values, for the call it ends (not those it unwinds). */
  int32_t exit_fid;
  const struct xr_arg_call *exit_values;
  struct ns_scale scale;
  struct xr_trace_threads threads;
  struct process *processes;
  size_t process_cap, process_count;
  struct xr_text_out out;
  char out_buf[OUT_CAP];
};

static void *mmap_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* ---- time --------------------------------------------------------------- */

static struct ns_scale ns_scale_of(uint64_t f) {
  struct ns_scale s = {0, 0, 0};
  if (f > (uint64_t)1 << 63)
    return s;
  /* 1e9 * 2^96 < 2^126; mul grows with shift, so the first that fits is
   * the largest. f >= 1 fits by shift 34 (1e9 * 2^34 < 2^64). */
  for (unsigned k = 96;; k--) {
    unsigned __int128 m = ((unsigned __int128)1000000000u << k) / f;
    if ((uint64_t)(m >> 64) == 0) {
      s.mul = (uint64_t)m;
      s.shift = k;
      break;
    }
  }
  s.fast_max = s.shift >= 64 ? UINT64_MAX : ((uint64_t)1 << s.shift) - 1;
  return s;
}

/* floor(d * 1e9 / f) modulo 2^64, as the 128-bit division gives it. */
static inline uint64_t ticks_to_ns(const struct ns_scale *s, uint64_t f,
                                   uint64_t d) {
  if (XR_UNLIKELY(d > s->fast_max))
    return (uint64_t)((unsigned __int128)d * 1000000000u / f);
  uint64_t q = (uint64_t)(((unsigned __int128)d * s->mul) >> s->shift);
  uint64_t r = d * 1000000000u - q * f;
  return q + (r >= f);
}

/* BOOTTIME nanoseconds of a tick count: one monotone function (floor of an
 * exact 128-bit product, as the Chrome writer's), never below 0. */
static inline uint64_t to_ns(const struct xr_perfetto *w, uint64_t tsc) {
  uint64_t f = w->c.frequency_hz, base = w->c.base_boottime_ns;
  if (XR_LIKELY(tsc >= w->c.base_ticks))
    return base + ticks_to_ns(&w->scale, f, tsc - w->c.base_ticks);
  uint64_t before = (uint64_t)(((unsigned __int128)(w->c.base_ticks - tsc) *
                                    1000000000u + f - 1) / f);
  return before < base ? base - before : 0;
}

/* ---- encoding: sizes first, then the bytes ----------------------------- */

static size_t vsz(uint64_t v) { return xr_pb_varint_size(v); }

static size_t sz_uint(unsigned field, uint64_t v) {
  return vsz((uint64_t)field << 3) + vsz(v);
}

static size_t sz_len(unsigned field, size_t n) {
  return vsz((uint64_t)field << 3 | XR_PB_WIRE_LEN) + vsz(n) + n;
}

static void put(struct xr_perfetto *w, const void *data, size_t n) {
  xr_text_put(&w->out, data, n);
}

static void put_uint(struct xr_perfetto *w, unsigned field, uint64_t v) {
  uint8_t b[2 * XR_PB_VARINT_MAX];
  size_t n = xr_pb_varint_encode(b, (uint64_t)field << 3 | XR_PB_WIRE_VARINT);
  n += xr_pb_varint_encode(b + n, v);
  put(w, b, n);
}

/* The key and length of a length-delimited field; its n bytes follow. */
static void put_len(struct xr_perfetto *w, unsigned field, size_t n) {
  uint8_t b[2 * XR_PB_VARINT_MAX];
  size_t k = xr_pb_varint_encode(b, (uint64_t)field << 3 | XR_PB_WIRE_LEN);
  k += xr_pb_varint_encode(b + k, n);
  put(w, b, k);
}

static void put_bytes(struct xr_perfetto *w, unsigned field, const void *s,
                      size_t n) {
  put_len(w, field, n);
  put(w, s, n);
}

/* A packet of `body` bytes starts: whole packets only between drains, so
 * a file cut short (a kill, a full disk) ends after a whole packet, unless
 * one packet is larger than the buffer. */
static void begin_packet(struct xr_perfetto *w, size_t body) {
  xr_text_reserve(&w->out, sz_len(TRACE_PACKET, body));
  put_len(w, TRACE_PACKET, body);
}

/* A payload as text: printable ASCII but '\' as it is, every other byte
 * \xHH, so any payload is valid UTF-8. */
static bool plain(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }

static size_t escaped_size(const unsigned char *s, size_t n) {
  size_t out = n;
  for (size_t i = 0; i < n; i++)
    out += plain(s[i]) ? 0 : 3;
  return out;
}

static void put_escaped(struct xr_perfetto *w, const unsigned char *s,
                        size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (plain(s[i]))
      continue;
    put(w, s + start, i - start);
    char esc[4] = {'\\', 'x', hex[s[i] >> 4], hex[s[i] & 15]};
    put(w, esc, 4);
    start = i + 1;
  }
  put(w, s + start, n - start);
}

/* DebugAnnotation {name, string_value} and {name, uint_value}. */
static size_t sz_note_str(const char *name, size_t value_len) {
  return sz_len(DA_NAME, strlen(name)) + sz_len(DA_STRING, value_len);
}
static void put_note_str(struct xr_perfetto *w, const char *name,
                         const char *value) {
  size_t n = strlen(value);
  put_len(w, TE_DEBUG_ANNOTATION, sz_note_str(name, n));
  put_bytes(w, DA_NAME, name, strlen(name));
  put_bytes(w, DA_STRING, value, n);
}
static size_t sz_note_uint(const char *name, uint64_t v) {
  return sz_len(DA_NAME, strlen(name)) + sz_uint(DA_UINT, v);
}
static void put_note_uint(struct xr_perfetto *w, const char *name,
                          uint64_t v) {
  put_len(w, TE_DEBUG_ANNOTATION, sz_note_uint(name, v));
  put_bytes(w, DA_NAME, name, strlen(name));
  put_uint(w, DA_UINT, v);
}

/* ---- argument values ------------------------------------------------------
 * A call's values (core/modes/arg_values.h) as debug annotations named as
 * the SPEC wrote them (docs/formats.md): /d int_value, /u uint_value, /x
 * and /p pointer_value, /f double_value (the same 64 bits), /f32
 * double_value of the float (the same value; a NaN's payload bits moved
 * up as the widening moves them, quiet bit and all), /s string_value (the
 * text escaped as custom events' payloads are), or pointer_value when
 * nothing could be read, and a string not read whole another annotation
 * "<name>.status" with the status word. */

/* A float's bits widened to a double's, exactly, NaNs included (no
 * arithmetic: a signalling NaN stays one). */
static uint64_t f32_as_f64(uint32_t f) {
  uint64_t sign = (uint64_t)(f >> 31) << 63, frac = f & 0x7fffffu;
  unsigned exp = (f >> 23) & 0xffu;
  if (exp == 0xff)
    return sign | (uint64_t)0x7ff << 52 | frac << 29;
  if (exp == 0) {
    if (frac == 0)
      return sign;
    int e = -126; /* a subnormal: normalised */
    while (!(frac & 0x800000u)) {
      frac <<= 1;
      e--;
    }
    return sign | (uint64_t)(e + 1023) << 52 | (frac & 0x7fffffu) << 29;
  }
  return sign | (uint64_t)(exp - 127 + 1023) << 52 | frac << 29;
}

static size_t sz_fixed64(unsigned field) { return vsz((uint64_t)field << 3) + 8; }

static void put_fixed64(struct xr_perfetto *w, unsigned field, uint64_t v) {
  uint8_t b[XR_PB_VARINT_MAX + 8];
  size_t n = xr_pb_varint_encode(b, (uint64_t)field << 3 | XR_PB_WIRE_I64);
  for (int i = 0; i < 8; i++)
    b[n++] = (uint8_t)(v >> (8 * i));
  put(w, b, n);
}

/* The string's bytes of value v of c (none when out of c's text). */
static const unsigned char *value_text(const struct xr_arg_call *c,
                                       const struct xr_arg_value *v, size_t *len) {
  size_t n = v->len <= XR_ARG_STRING_MAX ? v->len : XR_ARG_STRING_MAX;
  *len = (size_t)v->text + n <= sizeof c->text ? n : 0;
  return (const unsigned char *)c->text + v->text;
}

/* The value field of v's annotation: its size, or with w its bytes. */
static size_t value_field(struct xr_perfetto *w, const struct xr_arg_call *c,
                          const struct xr_arg_value *v) {
  switch (v->format) {
  case 0:
  case XR_ARGF_D:
    return w ? put_uint(w, DA_INT, v->bits), 0 : sz_uint(DA_INT, v->bits);
  case XR_ARGF_U:
    return w ? put_uint(w, DA_UINT, v->bits), 0 : sz_uint(DA_UINT, v->bits);
  case XR_ARGF_F:
  case XR_ARGF_F32: {
    uint64_t bits = v->format == XR_ARGF_F ? v->bits : f32_as_f64((uint32_t)v->bits);
    return w ? put_fixed64(w, DA_DOUBLE, bits), 0 : sz_fixed64(DA_DOUBLE);
  }
  case XR_ARGF_S:
    if (xr_arg_has_text(v)) {
      size_t len;
      const unsigned char *s = value_text(c, v, &len);
      size_t n = escaped_size(s, len);
      if (w == NULL)
        return sz_len(DA_STRING, n);
      put_len(w, DA_STRING, n);
      put_escaped(w, s, len);
      return 0;
    }
    break; /* nothing read: the pointer */
  default:
    break;
  }
  return w ? put_uint(w, DA_POINTER, v->bits), 0 : sz_uint(DA_POINTER, v->bits);
}

/* Bytes of c's annotations in a TrackEvent; with w, writes them. */
static size_t values_notes(struct xr_perfetto *w, const struct xr_arg_call *c) {
  size_t total = 0;
  for (unsigned i = 0; i < c->count && i < XR_ARGS_MAX; i++) {
    const struct xr_arg_value *v = &c->v[i];
    char buf[8];
    const char *name = xr_arg_name(v->what, buf);
    size_t body = sz_len(DA_NAME, strlen(name)) + value_field(NULL, c, v);
    total += sz_len(TE_DEBUG_ANNOTATION, body);
    if (w != NULL) {
      put_len(w, TE_DEBUG_ANNOTATION, body);
      put_bytes(w, DA_NAME, name, strlen(name));
      value_field(w, c, v);
    }
    const char *status = xr_arg_status_word(v);
    if (status == NULL)
      continue;
    char key[16]; /* "fparg16.status" at most */
    size_t k = strlen(name);
    memcpy(key, name, k + 1);
    memcpy(key + k, ".status", sizeof ".status");
    total += sz_len(TE_DEBUG_ANNOTATION, sz_note_str(key, strlen(status)));
    if (w != NULL)
      put_note_str(w, key, status);
  }
  return total;
}

/* ---- threads and processes ---------------------------------------------- */

static size_t slot_of(size_t cap, int32_t pid) {
  uint64_t h = ((uint64_t)(uint32_t)pid << 32) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (cap - 1);
}

/* Track uuids: a process's is its pid in the high half, a thread's adds
 * its tid (never 0) in the low half. */
static uint64_t process_uuid(int32_t pid) { return (uint64_t)(uint32_t)pid << 32; }
static uint64_t thread_uuid(int32_t pid, int32_t tid) {
  return process_uuid(pid) | (uint32_t)tid;
}

static bool grow_processes(struct xr_perfetto *w) {
  size_t cap = w->process_cap ? w->process_cap * 2 : 16;
  struct process *fresh = mmap_zeroed(cap * sizeof *fresh);
  if (fresh == NULL)
    return false;
  for (size_t i = 0; i < w->process_cap; i++) {
    if (!w->processes[i].used)
      continue;
    size_t s = slot_of(cap, w->processes[i].pid);
    while (fresh[s].used)
      s = (s + 1) & (cap - 1);
    fresh[s] = w->processes[i];
  }
  if (w->processes != NULL)
    munmap(w->processes, w->process_cap * sizeof *w->processes);
  w->processes = fresh;
  w->process_cap = cap;
  return true;
}

/* The process's track, described on sequence 1 at its first sight. */
static void see_process(struct xr_perfetto *w, int32_t pid) {
  if (w->process_cap != 0) {
    size_t s = slot_of(w->process_cap, pid);
    for (; w->processes[s].used; s = (s + 1) & (w->process_cap - 1))
      if (w->processes[s].pid == pid)
        return;
  }
  if ((w->process_count + 1) * 4 > w->process_cap * 3 && !grow_processes(w))
    return; /* undescribed: its threads' tracks still name the pid */
  size_t s = slot_of(w->process_cap, pid);
  while (w->processes[s].used)
    s = (s + 1) & (w->process_cap - 1);
  w->processes[s] = (struct process){pid, true};
  w->process_count++;

  const char *name =
      w->c.process_name ? w->c.process_name(w->c.who_ctx, pid) : "process";
  size_t name_len = strlen(name), label_len = strlen(RUNTIME_LABEL);
  size_t pd = sz_uint(PD_PID, (uint64_t)(uint32_t)pid) +
              sz_len(PD_NAME, name_len) + sz_len(PD_LABELS, label_len);
  size_t td = sz_uint(TD_UUID, process_uuid(pid)) + sz_len(TD_PROCESS, pd);
  begin_packet(w, sz_uint(PK_SEQUENCE_ID, GLOBAL_SEQUENCE) +
                      sz_len(PK_TRACK_DESCRIPTOR, td));
  put_uint(w, PK_SEQUENCE_ID, GLOBAL_SEQUENCE);
  put_len(w, PK_TRACK_DESCRIPTOR, td);
  put_uint(w, TD_UUID, process_uuid(pid));
  put_len(w, TD_PROCESS, pd);
  put_uint(w, PD_PID, (uint64_t)(uint32_t)pid);
  put_bytes(w, PD_NAME, name, name_len);
  put_bytes(w, PD_LABELS, RUNTIME_LABEL, label_len);
}

/* A clock of a ClockSnapshot. */
static size_t sz_clock(unsigned id, uint64_t ts, bool incremental) {
  return sz_uint(CLK_ID, id) + sz_uint(CLK_TIMESTAMP, ts) +
         (incremental ? sz_uint(CLK_INCREMENTAL, 1) : 0);
}
static void put_clock(struct xr_perfetto *w, unsigned id, uint64_t ts,
                      bool incremental) {
  put_len(w, CS_CLOCKS, sz_clock(id, ts, incremental));
  put_uint(w, CLK_ID, id);
  put_uint(w, CLK_TIMESTAMP, ts);
  if (incremental)
    put_uint(w, CLK_INCREMENTAL, 1);
}

/* A thread's sequence starts: clock 64 is BOOTTIME, counted in deltas
 * from the thread's first time; the sequence's state is cleared and its
 * defaults set; the thread's track is described. */
static void start_sequence(struct xr_perfetto *w, struct thread *t) {
  uint64_t ns = to_ns(w, t->base.first_tsc);
  t->last_ns = ns;
  size_t cs = sz_len(CS_CLOCKS, sz_clock(SEQUENCE_CLOCK, ns, true)) +
              sz_len(CS_CLOCKS, sz_clock(BUILTIN_CLOCK_BOOTTIME, ns, false));
  begin_packet(w, sz_uint(PK_SEQUENCE_ID, t->seq) +
                      sz_len(PK_CLOCK_SNAPSHOT, cs));
  put_uint(w, PK_SEQUENCE_ID, t->seq);
  put_len(w, PK_CLOCK_SNAPSHOT, cs);
  put_clock(w, SEQUENCE_CLOCK, ns, true);
  put_clock(w, BUILTIN_CLOCK_BOOTTIME, ns, false);

  char buf[64];
  const char *name = w->c.thread_name
                         ? w->c.thread_name(w->c.who_ctx, t->base.pid,
                                            t->base.tid, buf, sizeof buf)
                         : NULL;
  size_t name_len = name ? strlen(name) : 0;
  size_t ted = sz_uint(TED_TRACK_UUID, t->uuid);
  size_t def = sz_uint(DEF_TIMESTAMP_CLOCK_ID, SEQUENCE_CLOCK) +
               sz_len(DEF_TRACK_EVENT, ted);
  size_t thd = sz_uint(THD_PID, (uint64_t)(uint32_t)t->base.pid) +
               sz_uint(THD_TID, (uint64_t)(int64_t)t->base.tid) +
               (name ? sz_len(THD_NAME, name_len) : 0);
  size_t td = sz_uint(TD_UUID, t->uuid) +
              sz_uint(TD_PARENT_UUID, process_uuid(t->base.pid)) +
              sz_len(TD_THREAD, thd);
  begin_packet(w, sz_uint(PK_SEQUENCE_ID, t->seq) +
                      sz_uint(PK_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED) +
                      sz_len(PK_DEFAULTS, def) +
                      sz_len(PK_TRACK_DESCRIPTOR, td));
  put_uint(w, PK_SEQUENCE_ID, t->seq);
  put_uint(w, PK_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
  put_len(w, PK_DEFAULTS, def);
  put_uint(w, DEF_TIMESTAMP_CLOCK_ID, SEQUENCE_CLOCK);
  put_len(w, DEF_TRACK_EVENT, ted);
  put_uint(w, TED_TRACK_UUID, t->uuid);
  put_len(w, PK_TRACK_DESCRIPTOR, td);
  put_uint(w, TD_UUID, t->uuid);
  put_uint(w, TD_PARENT_UUID, process_uuid(t->base.pid));
  put_len(w, TD_THREAD, thd);
  put_uint(w, THD_PID, (uint64_t)(uint32_t)t->base.pid);
  put_uint(w, THD_TID, (uint64_t)(int64_t)t->base.tid);
  if (name)
    put_bytes(w, THD_NAME, name, name_len);
}

static XR_NOINLINE struct thread *new_thread(struct xr_perfetto *w,
                                             int32_t pid, int32_t tid,
                                             uint64_t tsc) {
  struct thread *t =
      (struct thread *)xr_trace_threads_add(&w->threads, pid, tid, tsc);
  if (t == NULL)
    return NULL;
  see_process(w, pid);
  t->seq = w->next_seq++;
  t->uuid = thread_uuid(pid, tid);
  t->tail[0] = PK_SEQUENCE_ID << 3 | XR_PB_WIRE_VARINT;
  t->tail_len = (uint8_t)(1 + xr_pb_varint_encode(t->tail + 1, t->seq));
  t->tail[t->tail_len++] = PK_TRACK_EVENT << 3 | XR_PB_WIRE_LEN;
  start_sequence(w, t);
  return t;
}

static inline struct thread *thread_of(struct xr_perfetto *w, int32_t pid,
                                       int32_t tid, uint64_t tsc) {
  struct xr_trace_thread *t = xr_trace_threads_find(&w->threads, pid, tid);
  return XR_LIKELY(t != NULL) ? (struct thread *)t
                              : new_thread(w, pid, tid, tsc);
}

/* ---- interning ---------------------------------------------------------- */

static size_t name_slot(size_t cap, int32_t fid) {
  return (size_t)(((uint64_t)(uint32_t)fid * 0x9E3779B97F4A7C15ull) >> 24) &
         (cap - 1);
}

static bool grow_names(struct thread *t) {
  size_t cap = t->name_cap ? t->name_cap * 2 : 256;
  struct interned *fresh = mmap_zeroed(cap * sizeof *fresh);
  if (fresh == NULL)
    return false;
  for (size_t i = 0; i < t->name_cap; i++) {
    if (t->names[i].iid == 0)
      continue;
    size_t s = name_slot(cap, t->names[i].fid);
    while (fresh[s].iid != 0)
      s = (s + 1) & (cap - 1);
    fresh[s] = t->names[i];
  }
  if (t->names != NULL)
    munmap(t->names, t->name_cap * sizeof *t->names);
  t->names = fresh;
  t->name_cap = cap;
  return true;
}

/* fid's iid on t's sequence; *fresh when it is new (the packet interns
 * it); 0 when the table cannot grow (the packet names it in full). */
static uint32_t iid_of(struct thread *t, int32_t fid, bool *fresh) {
  *fresh = false;
  if (t->name_cap != 0) {
    size_t s = name_slot(t->name_cap, fid);
    for (; t->names[s].iid != 0; s = (s + 1) & (t->name_cap - 1))
      if (t->names[s].fid == fid)
        return t->names[s].iid;
  }
  if ((t->name_count + 1) * 4 > t->name_cap * 3 && !grow_names(t))
    return 0;
  size_t s = name_slot(t->name_cap, fid);
  while (t->names[s].iid != 0)
    s = (s + 1) & (t->name_cap - 1);
  t->names[s] = (struct interned){fid, (uint32_t)++t->name_count};
  *fresh = true;
  return t->names[s].iid;
}

/* ---- events ------------------------------------------------------------- */

/* The sequence's delta to tsc; never back in time (a counter that stepped
 * back between CPUs gives 0). */
static inline uint64_t delta_to(struct xr_perfetto *w, struct thread *t,
                         uint64_t tsc) {
  uint64_t ns = to_ns(w, tsc);
  if (ns < t->last_ns)
    ns = t->last_ns;
  uint64_t d = ns - t->last_ns;
  t->last_ns = ns;
  return d;
}

/* v as a varint at p; returns the byte after it. */
static inline uint8_t *varint_at(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* The hot packets: a begin with a known name, an end without a mark.
 * {timestamp, sequence, track_event {type[, name_iid]}}: 10-13 bytes,
 * written in place in the output buffer (room for the longest, 30 bytes,
 * and the 8-byte store of the tail), each length filled in once its bytes
 * are down (every one is below 128: one byte). */
enum { PLAIN_SLICE_ROOM = 32 };
static void put_plain_slice(struct xr_perfetto *w, struct thread *t,
                            unsigned type, uint32_t iid, uint64_t delta) {
  xr_text_reserve(&w->out, PLAIN_SLICE_ROOM);
  uint8_t *p = (uint8_t *)w->out.buf + w->out.len;
  uint8_t *q = p + 2;
  *q++ = PK_TIMESTAMP << 3 | XR_PB_WIRE_VARINT;
  q = varint_at(q, delta);
  memcpy(q, t->tail, sizeof t->tail);
  q += t->tail_len;
  uint8_t *te = q++;
  *q++ = TE_TYPE << 3 | XR_PB_WIRE_VARINT;
  *q++ = (uint8_t)type;
  if (iid) {
    *q++ = TE_NAME_IID << 3 | XR_PB_WIRE_VARINT;
    q = varint_at(q, iid);
  }
  *te = (uint8_t)(q - te - 1);
  p[0] = TRACE_PACKET << 3 | XR_PB_WIRE_LEN;
  p[1] = (uint8_t)(q - p - 2);
  w->out.len += (size_t)(q - p);
}

/* A begin that interns its name, names it in full or logs an argument:
 * out of line, so the hot path's frame stays small. */
static XR_NOINLINE void named_begin(struct xr_perfetto *w, struct thread *t,
                                    const struct xr_tev *e, uint64_t delta,
                                    uint32_t iid, bool fresh) {
  const char *name = w->c.name(w->c.name_ctx, e->fid);
  size_t name_len = strlen(name);
  size_t te = sz_uint(TE_TYPE, SLICE_BEGIN) +
              (iid ? sz_uint(TE_NAME_IID, iid) : sz_len(TE_NAME, name_len)) +
              (e->has_arg ? sz_len(TE_DEBUG_ANNOTATION,
                                   sz_note_uint("arg1", e->arg))
                          : 0) +
              (e->call ? values_notes(NULL, e->call) : 0);
  size_t en = sz_uint(EN_IID, iid) + sz_len(EN_NAME, name_len);
  size_t interned = fresh ? sz_len(ID_EVENT_NAMES, en) : 0;
  begin_packet(w, sz_uint(PK_TIMESTAMP, delta) +
                      sz_uint(PK_SEQUENCE_ID, t->seq) +
                      sz_len(PK_TRACK_EVENT, te) +
                      (fresh ? sz_len(PK_INTERNED_DATA, interned) : 0));
  put_uint(w, PK_TIMESTAMP, delta);
  put_uint(w, PK_SEQUENCE_ID, t->seq);
  if (fresh) {
    put_len(w, PK_INTERNED_DATA, interned);
    put_len(w, ID_EVENT_NAMES, en);
    put_uint(w, EN_IID, iid);
    put_bytes(w, EN_NAME, name, name_len);
  }
  put_len(w, PK_TRACK_EVENT, te);
  put_uint(w, TE_TYPE, SLICE_BEGIN);
  if (iid)
    put_uint(w, TE_NAME_IID, iid);
  else
    put_bytes(w, TE_NAME, name, name_len);
  if (e->has_arg)
    put_note_uint(w, "arg1", e->arg);
  if (e->call)
    values_notes(w, e->call);
}

static inline void slice_begin(struct xr_perfetto *w, struct thread *t,
                               const struct xr_tev *e) {
  uint64_t delta = delta_to(w, t, e->tsc);
  bool fresh;
  uint32_t iid = iid_of(t, e->fid, &fresh);
  if (iid != 0 && !fresh && !e->has_arg && e->call == NULL)
    put_plain_slice(w, t, SLICE_BEGIN, iid, delta);
  else
    named_begin(w, t, e, delta, iid, fresh);
}

/* An end with a mark or a return value. */
static XR_NOINLINE void marked_end(struct xr_perfetto *w, struct thread *t,
                                   uint64_t delta, enum xr_trace_mark mark,
                                   const struct xr_arg_call *ret) {
  const char *text = xr_trace_mark_text[mark];
  size_t te = sz_uint(TE_TYPE, SLICE_END) +
              (mark != XR_MARK_NONE
                   ? sz_len(TE_DEBUG_ANNOTATION, sz_note_str("cut", strlen(text)))
                   : 0) +
              (ret ? values_notes(NULL, ret) : 0);
  begin_packet(w, sz_uint(PK_TIMESTAMP, delta) +
                      sz_uint(PK_SEQUENCE_ID, t->seq) +
                      sz_len(PK_TRACK_EVENT, te));
  put_uint(w, PK_TIMESTAMP, delta);
  put_uint(w, PK_SEQUENCE_ID, t->seq);
  put_len(w, PK_TRACK_EVENT, te);
  put_uint(w, TE_TYPE, SLICE_END);
  if (mark != XR_MARK_NONE)
    put_note_str(w, "cut", text);
  if (ret)
    values_notes(w, ret);
}

static inline void slice_end(struct xr_perfetto *w, struct thread *t,
                             uint64_t tsc, enum xr_trace_mark mark,
                             const struct xr_arg_call *ret) {
  uint64_t delta = delta_to(w, t, tsc);
  if (mark == XR_MARK_NONE && ret == NULL)
    put_plain_slice(w, t, SLICE_END, 0, delta);
  else
    marked_end(w, t, delta, mark, ret);
}

/* A packet of sequence 1: an absolute BOOTTIME timestamp, on `track`,
 * whose TrackEvent body (te bytes, the type and track included) the caller
 * writes next. */
static void begin_global_event(struct xr_perfetto *w, uint64_t ns,
                               unsigned type, uint64_t track, size_t te) {
  begin_packet(w, sz_uint(PK_TIMESTAMP, ns) +
                      sz_uint(PK_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_BOOTTIME) +
                      sz_uint(PK_SEQUENCE_ID, GLOBAL_SEQUENCE) +
                      sz_len(PK_TRACK_EVENT, te));
  put_uint(w, PK_TIMESTAMP, ns);
  put_uint(w, PK_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
  put_uint(w, PK_SEQUENCE_ID, GLOBAL_SEQUENCE);
  put_len(w, PK_TRACK_EVENT, te);
  put_uint(w, TE_TYPE, type);
  put_uint(w, TE_TRACK_UUID, track);
}

/* A call whose entry the trace lost: from k ns before the thread's first
 * time (k its rank among them, so each begins before the ones it encloses
 * and before anything the thread's sequence holds) to its exit, both on
 * sequence 1. The exit is later than every packet of the thread written so
 * far, so its end is not behind anything it encloses either. */
static XR_NOINLINE void no_entry_call(struct xr_perfetto *w,
                                      struct thread *t, int32_t fid,
                                      uint64_t tsc, const struct xr_arg_call *ret) {
  const char *name = w->c.name(w->c.name_ctx, fid);
  size_t name_len = strlen(name);
  uint64_t first = to_ns(w, t->base.first_tsc), k = ++t->no_entry;
  uint64_t begin = first > k ? first - k : 0;
  uint64_t end = to_ns(w, tsc);
  if (end < t->last_ns)
    end = t->last_ns;
  const char *text = xr_trace_mark_text[XR_MARK_NO_ENTRY];
  size_t te = sz_uint(TE_TYPE, SLICE_BEGIN) + sz_uint(TE_TRACK_UUID, t->uuid) +
              sz_len(TE_NAME, name_len) +
              sz_len(TE_DEBUG_ANNOTATION, sz_note_str("cut", strlen(text)));
  begin_global_event(w, begin, SLICE_BEGIN, t->uuid, te);
  put_bytes(w, TE_NAME, name, name_len);
  put_note_str(w, "cut", text);
  te = sz_uint(TE_TYPE, SLICE_END) + sz_uint(TE_TRACK_UUID, t->uuid) +
       (ret ? values_notes(NULL, ret) : 0);
  begin_global_event(w, end, SLICE_END, t->uuid, te);
  if (ret)
    values_notes(w, ret);
}

static XR_NOINLINE void instant(struct xr_perfetto *w, struct thread *t,
                                const struct xr_tev *e) {
  uint64_t delta = delta_to(w, t, e->tsc);
  const char *name = e->kind == XR_TEV_TYPED ? "typed event" : "custom event";
  size_t n = e->size < PAYLOAD_MAX ? e->size : PAYLOAD_MAX;
  bool cut = n < e->size;
  size_t data = escaped_size(e->data, n);
  size_t te = sz_uint(TE_TYPE, INSTANT) + sz_len(TE_NAME, strlen(name)) +
              sz_len(TE_DEBUG_ANNOTATION, sz_note_str("data", data)) +
              (e->kind == XR_TEV_TYPED
                   ? sz_len(TE_DEBUG_ANNOTATION,
                            sz_note_uint("type", e->event_type))
                   : 0) +
              (cut ? sz_len(TE_DEBUG_ANNOTATION,
                            sz_note_str("cut", strlen("payload"))) +
                         sz_len(TE_DEBUG_ANNOTATION,
                                sz_note_uint("size", e->size))
                   : 0);
  begin_packet(w, sz_uint(PK_TIMESTAMP, delta) +
                      sz_uint(PK_SEQUENCE_ID, t->seq) +
                      sz_len(PK_TRACK_EVENT, te));
  put_uint(w, PK_TIMESTAMP, delta);
  put_uint(w, PK_SEQUENCE_ID, t->seq);
  put_len(w, PK_TRACK_EVENT, te);
  put_uint(w, TE_TYPE, INSTANT);
  put_bytes(w, TE_NAME, name, strlen(name));
  put_len(w, TE_DEBUG_ANNOTATION, sz_note_str("data", data));
  put_bytes(w, DA_NAME, "data", 4);
  put_len(w, DA_STRING, data);
  put_escaped(w, e->data, n);
  if (e->kind == XR_TEV_TYPED)
    put_note_uint(w, "type", e->event_type);
  if (cut) {
    put_note_str(w, "cut", "payload");
    put_note_uint(w, "size", e->size);
  }
}

/* What the mode lost, as an instant on the process's (or thread's) track
 * of sequence 1: "xray dropped" {what, count}. */
static XR_NOINLINE void dropped(struct xr_perfetto *w, int32_t pid,
                                int32_t tid, const struct xr_tev *e) {
  if (e->arg == 0)
    return;
  uint64_t track = process_uuid(pid);
  if (tid != 0) {
    struct thread *t = thread_of(w, pid, tid, e->tsc);
    if (t != NULL)
      track = t->uuid;
  } else {
    see_process(w, pid);
  }
  uint64_t tsc = e->tsc != 0 ? e->tsc : w->any_tsc ? w->max_tsc : w->c.base_ticks;
  const char *what = e->data != NULL ? e->data : "events";
  const char *name = "xray dropped";
  size_t te = sz_uint(TE_TYPE, INSTANT) + sz_uint(TE_TRACK_UUID, track) +
              sz_len(TE_NAME, strlen(name)) +
              sz_len(TE_DEBUG_ANNOTATION, sz_note_str("what", strlen(what))) +
              sz_len(TE_DEBUG_ANNOTATION, sz_note_uint("count", e->arg));
  begin_global_event(w, to_ns(w, tsc), INSTANT, track, te);
  put_bytes(w, TE_NAME, name, strlen(name));
  put_note_str(w, "what", what);
  put_note_uint(w, "count", e->arg);
}

/* A call ends: its end on the thread's sequence, or for a call whose
 * entry was lost, the whole call on sequence 1; with the return value of
 * the exit that ends it (not of one that unwinds it; an untracked call,
 * f NULL, is taken to be the exit's own, as its mark is). */
static inline void end_call(void *wp, struct xr_trace_thread *t,
                            const struct xr_trace_frame *f, uint64_t tsc,
                            enum xr_trace_mark mark) {
  struct xr_perfetto *w = wp;
  const struct xr_arg_call *ret = NULL;
  if (XR_UNLIKELY(w->exit_values != NULL) && mark != XR_MARK_UNWOUND &&
      (f == NULL || f->fid == w->exit_fid))
    ret = w->exit_values;
  if (XR_UNLIKELY(mark == XR_MARK_NO_ENTRY))
    no_entry_call(w, (struct thread *)t, f->fid, tsc, ret);
  else
    slice_end(w, (struct thread *)t, tsc, mark, ret);
}

void xr_perfetto_add(struct xr_perfetto *w, int32_t pid, int32_t tid,
                     const struct xr_tev *e) {
  if (e->kind == XR_TEV_DROPPED) {
    dropped(w, pid, tid, e);
    return;
  }
  struct thread *t = thread_of(w, pid, tid, e->tsc);
  if (t == NULL)
    return;
  if (e->tsc > t->base.last_tsc)
    t->base.last_tsc = e->tsc;
  if (!w->any_tsc || e->tsc > w->max_tsc)
    w->max_tsc = e->tsc;
  w->any_tsc = true;
  switch (e->kind) {
  case XR_TEV_ENTER:
    slice_begin(w, t, e);
    xr_trace_thread_push(&t->base, e->fid, e->tsc);
    break;
  case XR_TEV_EXIT:
  case XR_TEV_TAIL_EXIT:
    if (XR_UNLIKELY(e->call != NULL && e->call->count != 0)) {
      w->exit_fid = e->fid;
      w->exit_values = e->call;
      xr_trace_thread_exit(&t->base, e, end_call, w);
      w->exit_values = NULL;
      break;
    }
    xr_trace_thread_exit(&t->base, e, end_call, w);
    break;
  case XR_TEV_CUSTOM:
  case XR_TEV_TYPED:
    instant(w, t, e);
    break;
  case XR_TEV_DROPPED:
    break;
  }
}

/* ---- open / close ------------------------------------------------------- */

struct xr_perfetto *xr_perfetto_open_fd(int fd, const char *path,
                                        const struct xr_trace_context *c) {
  struct xr_perfetto *w = mmap_zeroed(sizeof *w);
  if (w == NULL) {
    if (!c->quiet)
      xr_report(XR_ERROR, "trace_output: no memory for the Perfetto writer; "
                "%s not written", path);
    errno = ENOMEM;
    return NULL;
  }
  w->fd = fd;
  size_t n = strlen(path);
  if (n >= sizeof w->path)
    n = sizeof w->path - 1;
  memcpy(w->path, path, n);
  w->c = *c;
  if (w->c.frequency_hz == 0)
    w->c.frequency_hz = 1000000000u;
  w->scale = ns_scale_of(w->c.frequency_hz);
  w->next_seq = GLOBAL_SEQUENCE + 1;
  xr_trace_threads_init(&w->threads, sizeof(struct thread));
  xr_text_init_buffer(&w->out, xr_text_fd_sink, &w->fd, w->out_buf, OUT_CAP);
  /* BOOTTIME is the trace's clock: sequence 1's timestamps are in it, and
   * every thread's clock 64 is tied to it. */
  size_t cs = sz_len(CS_CLOCKS, sz_clock(BUILTIN_CLOCK_BOOTTIME,
                                          w->c.base_boottime_ns, false)) +
              sz_uint(CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_BOOTTIME);
  begin_packet(w, sz_uint(PK_SEQUENCE_ID, GLOBAL_SEQUENCE) +
                      sz_len(PK_CLOCK_SNAPSHOT, cs));
  put_uint(w, PK_SEQUENCE_ID, GLOBAL_SEQUENCE);
  put_len(w, PK_CLOCK_SNAPSHOT, cs);
  put_clock(w, BUILTIN_CLOCK_BOOTTIME, w->c.base_boottime_ns, false);
  put_uint(w, CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_BOOTTIME);
  return w;
}

int xr_perfetto_close(struct xr_perfetto *w) {
  for (size_t i = 0; i < w->threads.cap; i++) {
    struct thread *t = (struct thread *)xr_trace_threads_at(&w->threads, i);
    if (t == NULL)
      continue;
    xr_trace_thread_end_open(&t->base, end_call, w);
    if (t->names != NULL)
      munmap(t->names, t->name_cap * sizeof *t->names);
  }
  int rc = xr_text_flush(&w->out) == 0 ? 0 : -1;
  int err = rc != 0 ? w->out.failed : 0;
  if (rc != 0 && !w->c.quiet)
    xr_report(XR_ERROR, "trace_output: writing '%s' failed: %s; it holds "
              "the packets written before", w->path, strerror(err));
  if (close(w->fd) != 0 && rc == 0) {
    err = errno;
    rc = -1;
    if (!w->c.quiet)
      xr_report(XR_ERROR, "trace_output: closing '%s' failed: %s", w->path,
                strerror(err));
  }
  if (rc == 0 && !w->c.quiet)
    xr_report(XR_INFO, "trace_output: wrote %s (open it in "
              "https://ui.perfetto.dev)", w->path);
  xr_trace_threads_free(&w->threads);
  if (w->processes != NULL)
    munmap(w->processes, w->process_cap * sizeof *w->processes);
  munmap(w, sizeof *w);
  if (rc != 0)
    errno = err;
  return rc;
}

/* ---- the format row ----------------------------------------------------- */

static void *format_open(int fd, const char *path,
                         const struct xr_trace_context *c) {
  struct xr_perfetto *w = xr_perfetto_open_fd(fd, path, c);
  if (w == NULL)
    close(fd);
  return w;
}

static void format_event(void *w, int32_t pid, int32_t tid,
                         const struct xr_tev *e) {
  xr_perfetto_add(w, pid, tid, e);
}

static int format_close(void *w) { return xr_perfetto_close(w); }

const struct xr_trace_format xr_perfetto_format = {
    ".pftrace", format_open, format_event, format_close, true};
