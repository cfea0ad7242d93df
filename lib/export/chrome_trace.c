/* Chrome trace event JSON writer. See chrome_trace.h.
 *
 * Memory: the threads and their call stacks (trace_threads.h); the output
 * goes through core's one buffered writer (text_out.h) with a 256 KiB buffer
 * that is written out only between events (xr_text_reserve), so the file
 * always ends after a whole event (a write RLIMIT_FSIZE would cut is not
 * attempted: xr_write_all). No malloc, stdio, locks or /proc: with a
 * quiet context it may run in a signal handler (trace_event.h). */
#include "export/chrome_trace.h"
#include "core/base/report.h"
#include "core/base/mmap_array.h"
#include "core/output/text_out.h"
#include "export/arg_text.h"
#include "export/trace_threads.h"
#include "xray/xray_version.h"

#include <limits.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The values of an open call (its entry's), kept until it ends. */
struct open_values {
  size_t depth; /* its frame's index on the thread's stack */
  struct xr_arg_call call;
};

struct thread {
  struct xr_trace_thread base; /* first: the table's record */
  uint8_t ids_len;
  char ids[48]; /* ,"pid":P,"tid":T of every event, formatted once */
  /* Open calls with values, innermost last (mmap'd, grown by doubling;
   * untouched while no call has values). */
  struct open_values *values;
  size_t nvalues, values_cap;
};

#define OUT_CAP ((size_t)256 * 1024)

struct xr_chrome {
  int fd;
  char path[PATH_MAX];
  uint64_t frequency_hz;
  struct xr_trace_context c; /* c.base_ticks: time 0 of the file */
  uint64_t max_tsc; /* the latest time of any thread */
  uint64_t events;
  /* The exit being handled, when it has a return value: its function and
   * values, for the call it ends (not those it unwinds). */
  int32_t exit_fid;
  const struct xr_arg_call *exit_values;
  struct xr_trace_threads threads;
  struct xr_text_out out;
  char out_buf[OUT_CAP];
};

static void *mmap_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* ---- output ------------------------------------------------------------- */

static void put(struct xr_chrome *w, const void *data, size_t n) {
  xr_text_put(&w->out, data, n);
}

static void put_str(struct xr_chrome *w, const char *s) { put(w, s, strlen(s)); }

/* The digits d[i..end) into the output. Inside the room begin_event
 * reserved, one fixed 32-byte copy (d holds 32 bytes past i; what follows
 * the digits is written over next) instead of a memcpy call of their
 * length: numbers are most of an event's bytes. */
static void put_digits(struct xr_chrome *w, const char d[56], size_t i,
                       size_t end) {
  struct xr_text_out *o = &w->out;
  if (o->cap - o->len >= 32) {
    __builtin_memcpy(o->buf + o->len, d + i, 32);
    o->len += end - i;
  } else {
    put(w, d + i, end - i);
  }
}

/* The thread's ids, with the same fixed copy. */
static void put_ids(struct xr_chrome *w, const struct thread *t) {
  struct xr_text_out *o = &w->out;
  if (o->cap - o->len >= sizeof t->ids) {
    __builtin_memcpy(o->buf + o->len, t->ids, sizeof t->ids);
    o->len += t->ids_len;
  } else {
    put(w, t->ids, t->ids_len);
  }
}

static void put_u64(struct xr_chrome *w, uint64_t v) {
  char d[56] = {0}; /* xr_u64_digits fills d[i..24) */
  put_digits(w, d, xr_u64_digits(d, v, 1), 24);
}

static void put_i32(struct xr_chrome *w, int32_t v) {
  if (v < 0) {
    put(w, "-", 1);
    put_u64(w, (uint64_t)(-(int64_t)v));
  } else {
    put_u64(w, (uint64_t)v);
  }
}

/* Nanoseconds as microseconds with three decimals ("12.345", "-0.016"). */
static void put_us(struct xr_chrome *w, int64_t signed_ns) {
  if (signed_ns < 0)
    put(w, "-", 1);
  uint64_t ns = signed_ns < 0 ? -(uint64_t)signed_ns : (uint64_t)signed_ns;
  char d[56] = {0};
  size_t i = xr_u64_digits(d, ns, 4); /* at least "0.001" */
  d[24] = d[23]; /* the point before the last three digits */
  d[23] = d[22];
  d[22] = d[21];
  d[21] = '.';
  put_digits(w, d, i, 25);
}

/* A JSON string body: quote, backslash and every byte outside printable
 * ASCII escaped as \u00XX (bytes read as Latin-1), so any payload gives
 * valid JSON (and valid UTF-8). Worst case 6 bytes per input byte. */
static void put_escaped(struct xr_chrome *w, const void *data, size_t n) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = data;
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
      continue;
    put(w, s + start, i - start);
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    if (c == '"' || c == '\\') {
      esc[1] = (char)c;
      put(w, esc, 2);
    } else {
      put(w, esc, 6);
    }
    start = i + 1;
  }
  put(w, s + start, n - start);
}

/* Nanoseconds since the file's time 0: one monotone function of the ticks
 * (floor of an exact 128-bit product), so a call's end is ts + dur exactly
 * and whatever nests in ticks nests in the file. Relative, not absolute: a
 * reader parses ts as a double, which holds nanoseconds only below 2^53
 * (104 days); counters read far more (qemu-aarch64's: 1.8e18 ns), and a
 * child ending one tick before its parent could read as ending after it. */
static int64_t to_ns(const struct xr_chrome *w, uint64_t tsc) {
  uint64_t f = w->frequency_hz, base = w->c.base_ticks;
  if (tsc >= base)
    return (int64_t)((unsigned __int128)(tsc - base) * 1000000000u / f);
  /* before time 0 (not expected): the floor, still monotone */
  return -(int64_t)(((unsigned __int128)(base - tsc) * 1000000000u +
                     f - 1) / f);
}

/* Separator before every event but the first: the file never ends in a
 * comma, so "what is there" + "]" always parses. */
static void begin_event(struct xr_chrome *w, size_t bound) {
  xr_text_reserve(&w->out, bound);
  put(w, w->events == 0 ? "\n" : ",\n", w->events == 0 ? 1 : 2);
  w->events++;
}

/* Bytes a call's values take at most in "args". */
static size_t values_bound(const struct xr_arg_call *c) {
  return c ? (size_t)c->count * (6 * XR_ARG_STRING_MAX + XR_ARG_NUMBER_MAX + 48) : 0;
}

/* The values of c as members of "args" (docs/formats.md): each named as
 * its SPEC wrote it, a string not read whole followed by "<name>.status". */
static XR_NOINLINE void put_values(struct xr_chrome *w, const struct xr_arg_call *c,
                                   bool comma) {
  for (unsigned i = 0; i < c->count && i < XR_ARGS_MAX; i++) {
    const struct xr_arg_value *v = &c->v[i];
    char buf[8];
    const char *name = xr_arg_name(v->what, buf);
    if (comma)
      put(w, ",", 1);
    comma = true;
    put(w, "\"", 1);
    put_str(w, name);
    put(w, "\":", 2);
    if (v->format != XR_ARGF_S) {
      char num[XR_ARG_NUMBER_MAX];
      put(w, num, xr_arg_number_json(v, num));
      continue;
    }
    if (xr_arg_has_text(v)) {
      size_t len = v->len <= XR_ARG_STRING_MAX ? v->len : XR_ARG_STRING_MAX;
      if ((size_t)v->text + len > sizeof c->text)
        len = 0;
      put(w, "\"", 1);
      put_escaped(w, c->text + v->text, len);
      put(w, "\"", 1);
    } else {
      put_str(w, "null");
    }
    const char *status = xr_arg_status_word(v);
    if (status != NULL) {
      put(w, ",\"", 2);
      put_str(w, name);
      put_str(w, ".status\":\"");
      put_str(w, status);
      put(w, "\"", 1);
    }
  }
}

static void emit_call(struct xr_chrome *w, const struct thread *t,
                      int32_t fid, uint64_t begin, uint64_t end,
                      enum xr_trace_mark mark, const struct xr_arg_call *args,
                      const struct xr_arg_call *ret) {
  const char *name = w->c.name(w->c.name_ctx, fid);
  size_t len = strlen(name);
  begin_event(w, 6 * len + 192 + values_bound(args) + values_bound(ret));
  put_str(w, "{\"name\":\"");
  put_escaped(w, name, len);
  put_str(w, "\",\"ph\":\"X\",\"ts\":");
  int64_t b = to_ns(w, begin), e = to_ns(w, end);
  put_us(w, b);
  put_str(w, ",\"dur\":");
  put_us(w, e > b ? e - b : 0);
  put_ids(w, t);
  if (mark != XR_MARK_NONE || XR_UNLIKELY(args != NULL || ret != NULL)) {
    put_str(w, ",\"args\":{");
    bool comma = false;
    if (args != NULL && args->count != 0) {
      put_values(w, args, comma);
      comma = true;
    }
    if (ret != NULL && ret->count != 0) {
      put_values(w, ret, comma);
      comma = true;
    }
    if (mark != XR_MARK_NONE) {
      put_str(w, comma ? ",\"cut\":\"" : "\"cut\":\"");
      put_str(w, xr_trace_mark_text[mark]);
      put(w, "\"", 1);
    }
    put(w, "}", 1);
  }
  put(w, "}", 1);
}

static void emit_instant(struct xr_chrome *w, const struct thread *t,
                         const struct xr_tev *e) {
  begin_event(w, 6 * e->size + 192);
  put_str(w, e->kind == XR_TEV_TYPED ? "{\"name\":\"typed event\""
                                     : "{\"name\":\"custom event\"");
  put_str(w, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
  put_us(w, to_ns(w, e->tsc));
  put_ids(w, t);
  put_str(w, ",\"args\":{");
  if (e->kind == XR_TEV_TYPED) {
    put_str(w, "\"type\":");
    put_u64(w, e->event_type);
    put(w, ",", 1);
  }
  put_str(w, "\"data\":\"");
  put_escaped(w, e->data, e->size);
  put_str(w, "\"}}");
}

/* What the mode lost: an instant event of the process ("s":"p"), or of
 * the thread when tid is not 0, at the given time or the trace's last. */
static void emit_dropped(struct xr_chrome *w, int32_t pid, int32_t tid,
                         const struct xr_tev *e) {
  if (e->arg == 0)
    return;
  const char *what = e->data != NULL ? e->data : "events";
  begin_event(w, 6 * strlen(what) + 192);
  put_str(w, "{\"name\":\"xray dropped\",\"ph\":\"i\",\"s\":\"");
  put_str(w, tid != 0 ? "t" : "p");
  put_str(w, "\",\"ts\":");
  put_us(w, to_ns(w, e->tsc != 0 ? e->tsc : w->max_tsc));
  put_str(w, ",\"pid\":");
  put_i32(w, pid);
  put_str(w, ",\"tid\":");
  put_i32(w, tid != 0 ? tid : pid);
  put_str(w, ",\"args\":{\"what\":\"");
  put_escaped(w, what, strlen(what));
  put_str(w, "\",\"count\":");
  put_u64(w, e->arg);
  put_str(w, "}}");
}

/* ---- threads ------------------------------------------------------------ */

/* An i32 into out; returns the bytes written (at most 11). */
static size_t i32_text(char *out, int32_t v) {
  char d[24];
  uint64_t u = v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v;
  size_t i = xr_u64_digits(d, u, 1), n = 0;
  if (v < 0)
    out[n++] = '-';
  memcpy(out + n, d + i, sizeof d - i);
  return n + sizeof d - i;
}

static void format_ids(struct thread *t) {
  size_t n = 0;
  memcpy(t->ids, ",\"pid\":", 7);
  n = 7 + i32_text(t->ids + 7, t->base.pid);
  memcpy(t->ids + n, ",\"tid\":", 7);
  n += 7;
  n += i32_text(t->ids + n, t->base.tid);
  t->ids_len = (uint8_t)n; /* at most 36 */
}

static XR_NOINLINE struct thread *new_thread(struct xr_chrome *w, int32_t pid,
                                             int32_t tid, uint64_t tsc) {
  struct thread *t =
      (struct thread *)xr_trace_threads_add(&w->threads, pid, tid, tsc);
  if (t != NULL)
    format_ids(t);
  return t;
}

/* Keeps the values of the call just pushed (frame depth - 1) until it
 * ends; dropped when there is no memory for them (the call is still
 * written). */
static XR_NOINLINE void keep_values(struct thread *t, const struct xr_arg_call *c) {
  if (t->nvalues == t->values_cap) {
    struct open_values *v =
        xr_mmap_array_grow(t->values, &t->values_cap, t->nvalues, sizeof *v, 16);
    if (v == NULL)
      return;
    t->values = v;
  }
  struct open_values *o = &t->values[t->nvalues++];
  o->depth = t->base.depth - 1;
  o->call = *c;
}

/* A call ends: one complete event. A call entered untracked was never
 * written: nothing ends it. Its values: its entry's, kept while it was
 * open (only a frame of the stack has them: not a no-entry call's), and
 * the return value of the exit that ends it (not of one that unwinds it). */
static void end_call(void *wp, struct xr_trace_thread *tt,
                     const struct xr_trace_frame *f, uint64_t tsc,
                     enum xr_trace_mark mark) {
  struct xr_chrome *w = wp;
  struct thread *t = (struct thread *)tt;
  if (f == NULL)
    return;
  const struct xr_arg_call *args = NULL, *ret = NULL;
  if (XR_UNLIKELY(t->nvalues != 0) && f == &tt->stack[tt->depth] &&
      t->values[t->nvalues - 1].depth == tt->depth)
    args = &t->values[--t->nvalues].call; /* stays there until the next keep */
  if (XR_UNLIKELY(w->exit_values != NULL) && f->fid == w->exit_fid &&
      mark != XR_MARK_UNWOUND)
    ret = w->exit_values;
  emit_call(w, t, f->fid, f->tsc, tsc, mark, args, ret);
}

void xr_chrome_add(struct xr_chrome *w, int32_t pid, int32_t tid,
                   const struct xr_tev *e) {
  if (e->kind == XR_TEV_DROPPED) {
    emit_dropped(w, pid, tid, e);
    return;
  }
  struct thread *t =
      (struct thread *)xr_trace_threads_find(&w->threads, pid, tid);
  if (XR_UNLIKELY(t == NULL)) {
    t = new_thread(w, pid, tid, e->tsc);
    if (t == NULL)
      return;
  }
  if (e->tsc > t->base.last_tsc)
    t->base.last_tsc = e->tsc;
  if (e->tsc > w->max_tsc || w->events == 0)
    w->max_tsc = e->tsc;
  switch (e->kind) {
  case XR_TEV_ENTER:
    if (xr_trace_thread_push(&t->base, e->fid, e->tsc) &&
        XR_UNLIKELY(e->call != NULL && e->call->count != 0))
      keep_values(t, e->call);
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
    emit_instant(w, t, e);
    break;
  case XR_TEV_DROPPED:
    break;
  }
}

/* ---- open / close ------------------------------------------------------- */

struct xr_chrome *xr_chrome_open_fd(int fd, const char *path,
                                    const struct xr_trace_context *c) {
  struct xr_chrome *w = mmap_zeroed(sizeof *w);
  if (w == NULL) {
    if (!c->quiet)
      xr_report(XR_ERROR, "trace_output: no memory for the JSON writer; %s "
                "not written", path);
    errno = ENOMEM;
    return NULL;
  }
  w->fd = fd;
  size_t n = strlen(path);
  if (n >= sizeof w->path)
    n = sizeof w->path - 1;
  memcpy(w->path, path, n);
  w->c = *c;
  w->frequency_hz = c->frequency_hz ? c->frequency_hz : 1000000000u;
  xr_trace_threads_init(&w->threads, sizeof(struct thread));
  xr_text_init_buffer(&w->out, xr_text_fd_sink, &w->fd, w->out_buf, OUT_CAP);
  put(w, "[", 1);
  (void)xr_text_flush(&w->out); /* an array from the start; a failure sticks */
  return w;
}

/* A thread_name or process_name metadata event. A process's also names the
 * runtime that wrote the file ("xray_runtime" beside "name" in its args:
 * the file is a bare array, so it has no top-level object for metadata;
 * viewers read args.name and leave the other keys). */
static void emit_name(struct xr_chrome *w, const char *what, int32_t pid,
                      int32_t tid, const char *name, bool runtime) {
  begin_event(w, 6 * strlen(name) + 160);
  put_str(w, "{\"name\":\"");
  put_str(w, what);
  put_str(w, "\",\"ph\":\"M\",\"pid\":");
  put_i32(w, pid);
  put_str(w, ",\"tid\":");
  put_i32(w, tid);
  put_str(w, ",\"args\":{\"name\":\"");
  put_escaped(w, name, strlen(name));
  if (runtime)
    put_str(w, "\",\"xray_runtime\":\"" XRAY_RUNTIME_VERSION);
  put_str(w, "\"}}");
}

int xr_chrome_close(struct xr_chrome *w) {
  for (size_t i = 0; i < w->threads.cap; i++) {
    struct xr_trace_thread *t = xr_trace_threads_at(&w->threads, i);
    if (t == NULL)
      continue;
    xr_trace_thread_end_open(t, end_call, w);
    char buf[64];
    const char *name =
        w->c.thread_name ? w->c.thread_name(w->c.who_ctx, t->pid, t->tid, buf,
                                            sizeof buf)
                         : NULL;
    if (name != NULL)
      emit_name(w, "thread_name", t->pid, t->tid, name, false);
  }
  /* One process name per process (forks write their own logs, so one). */
  int32_t named = 0;
  for (size_t i = 0; i < w->threads.cap; i++) {
    struct xr_trace_thread *t = xr_trace_threads_at(&w->threads, i);
    if (t != NULL && t->pid != named) {
      named = t->pid;
      emit_name(w, "process_name", named, named,
                w->c.process_name ? w->c.process_name(w->c.who_ctx, named)
                                  : "process",
                true);
    }
  }
  put(w, "\n]\n", 3);
  int rc = 0, err = 0;
  if (xr_text_flush(&w->out) != 0) {
    err = w->out.failed;
    if (!w->c.quiet)
      xr_report(XR_ERROR, "trace_output: writing '%s' failed: %s; it holds "
                "the events written before (a JSON array without its end)",
                w->path, strerror(err));
    rc = -1;
  }
  if (close(w->fd) != 0 && rc == 0) {
    err = errno;
    if (!w->c.quiet)
      xr_report(XR_ERROR, "trace_output: closing '%s' failed: %s", w->path,
                strerror(err));
    rc = -1;
  }
  if (rc == 0 && !w->c.quiet)
    xr_report(XR_INFO, "trace_output: wrote %llu events to %s (open it in "
              "https://ui.perfetto.dev)", (unsigned long long)w->events,
              w->path);
  for (size_t i = 0; i < w->threads.cap; i++) {
    struct thread *t = (struct thread *)xr_trace_threads_at(&w->threads, i);
    if (t != NULL && t->values != NULL)
      munmap(t->values, t->values_cap * sizeof *t->values);
  }
  xr_trace_threads_free(&w->threads);
  munmap(w, sizeof *w);
  if (rc != 0)
    errno = err;
  return rc;
}

/* ---- the format row ----------------------------------------------------- */

static void *format_open(int fd, const char *path,
                         const struct xr_trace_context *c) {
  struct xr_chrome *w = xr_chrome_open_fd(fd, path, c);
  if (w == NULL)
    close(fd);
  return w;
}

static void format_event(void *w, int32_t pid, int32_t tid,
                         const struct xr_tev *e) {
  xr_chrome_add(w, pid, tid, e);
}

static int format_close(void *w) { return xr_chrome_close(w); }

const struct xr_trace_format xr_chrome_format = {
    ".json", format_open, format_event, format_close, true};
