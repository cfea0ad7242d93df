/* fdr_log_writer.c: what the joined log holds, decoded back: records
 * copied as they are keep their times; the fix-ups (an exit whose entry was
 * not kept and the record after it, calls closed by unwinding, a custom
 * event after a dropped exit) get exact times; a thread parked in its first
 * call gets the sync event; the header declares the largest block; a
 * stack deeper than the caller's scratch passes unchecked; the joined
 * file's Chrome JSON marks the calls the writer closed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/thread/thread.h"
#include "export/trace_formats.h"
#include "fdr/fdr_arg_records.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_log_writer.h"
#include "fdr/fdr_records.h"

/* ---- input: buffers as the handlers write them --------------------------- */

struct in {
  uint8_t data[1 << 18];
  uint8_t *p;
};
static struct in bufs[4];

static struct in *begin(int i, int32_t tid, uint16_t cpu, uint64_t tsc) {
  struct in *b = &bufs[i];
  b->p = xr_fdr_preamble(b->data, 5, tid, 77, 1, 2, cpu, tsc);
  return b;
}
static void fn(struct in *b, unsigned kind, int32_t fid, uint32_t delta) {
  b->p = xr_fdr_function(b->p, fid, kind, delta);
}
static struct xr_fdr_span span_of(struct in *b) {
  return (struct xr_fdr_span){b->data, (size_t)(b->p - b->data), 0, 0, 0};
}

/* ---- output: the file, decoded ------------------------------------------- */

/* "tid kind fid tsc", then " arg=<hex>" (compiler-rt's argument) or
 * " [what.format.status=bits'text' ...]" (captured values); or
 * "tid custom <data> tsc" */
static char got[64][160];
static size_t ngot;
static uint8_t file[1 << 20];
static size_t file_size;

static void on_record(void *ctx, const struct xr_fdr_span *s,
                      const struct xr_tev *e, uint16_t cpu) {
  (void)ctx, (void)cpu;
  if (ngot == 64)
    return;
  if (e->kind == XR_TEV_CUSTOM)
    snprintf(got[ngot++], sizeof got[0], "%d custom %.*s %llu", s->tid,
             (int)e->size, (const char *)e->data, (unsigned long long)e->tsc);
  else {
    char *out = got[ngot++], *end = out + sizeof got[0];
    out += snprintf(out, (size_t)(end - out), "%d %s %d %llu", s->tid,
                    e->kind == XR_TEV_ENTER ? "enter" : "exit", e->fid,
                    (unsigned long long)e->tsc);
    if (e->has_arg)
      out += snprintf(out, (size_t)(end - out), " arg=%llx", (unsigned long long)e->arg);
    for (size_t i = 0; e->call != NULL && i < e->call->count; i++) {
      const struct xr_arg_value *v = &e->call->v[i];
      out += snprintf(out, (size_t)(end - out), "%s%02x.%u.%u=%llx'%.*s'%s", i ? " " : " [",
                      v->what, v->format, v->status, (unsigned long long)v->bits,
                      (int)v->len, e->call->text + v->text,
                      i + 1 == e->call->count ? "]" : "");
    }
  }
}

/* Writes the spans to a new unlinked file, serial or pipelined; returns
 * the fd, *rc and *err what the writer returned. */
static int write_to_file(const struct xr_fdr_span *spans, size_t n,
                         void *scratch, uint64_t buffer_size, uint64_t limit,
                         bool pipelined, struct xr_fdr_log_stats *st,
                         int *rc, int *err) {
  char path[] = "/tmp/xr_log_writer_test.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  uint8_t header[32];
  xr_fdr_file_header(header, 5, true, true, 1000000000, buffer_size);
  errno = 0;
  *rc = pipelined ? xr_fdr_write_log_pipelined(fd, header, spans, n, limit, st)
                  : xr_fdr_write_log(fd, header, spans, n, scratch, limit, st);
  *err = *rc ? errno : 0;
  return fd;
}

/* The pipelined writer (the flush's: an I/O thread writes each piece
 * while the next is scanned) makes the serial writer's file, byte for
 * byte, with the same stats and status, whatever `limit` cuts. */
static void expect_pipelined_same(const struct xr_fdr_span *spans, size_t n,
                                  uint64_t buffer_size, uint64_t limit) {
  struct xr_fdr_log_stats st1, st2;
  int rc1, rc2, err1, err2;
  int fd1 = write_to_file(spans, n, NULL, buffer_size, limit, false, &st1,
                          &rc1, &err1);
  int fd2 = write_to_file(spans, n, NULL, buffer_size, limit, true, &st2,
                          &rc2, &err2);
  assert_int_equal(rc1, rc2);
  assert_int_equal(err1, err2);
  assert_memory_equal(&st1, &st2, sizeof st1);
  off_t size1 = lseek(fd1, 0, SEEK_END), size2 = lseek(fd2, 0, SEEK_END);
  assert_int_equal(size1, size2);
  static uint8_t a[1 << 16], b[1 << 16];
  for (off_t off = 0; off < size1; off += (off_t)sizeof a) {
    ssize_t k1 = pread(fd1, a, sizeof a, off), k2 = pread(fd2, b, sizeof b, off);
    assert_int_equal(k1, k2);
    assert_true(k1 > 0);
    assert_memory_equal(a, b, (size_t)k1);
  }
  close(fd1);
  close(fd2);
}

/* Writes the spans (ordered first), reads the file back, decodes each
 * block; returns the number of blocks. Checks that the pipelined writer
 * makes the same file. */
static size_t run(struct xr_fdr_span *spans, size_t n, void *scratch,
                  uint64_t buffer_size, struct xr_fdr_log_stats *st) {
  xr_fdr_spans_order(spans, n, 5);
  int rc, err;
  int fd = write_to_file(spans, n, scratch, buffer_size, UINT64_MAX, false,
                         st, &rc, &err);
  assert_int_equal(rc, 0);
  if (scratch == NULL) /* the pipelined writer maps its own */
    expect_pipelined_same(spans, n, buffer_size, UINT64_MAX);
  ssize_t k = pread(fd, file, sizeof file, 0);
  close(fd);
  assert_true(k >= 32 && (size_t)k < sizeof file);
  file_size = (size_t)k;
  ngot = 0;
  size_t blocks = 0, off = 32;
  struct xr_fdr_span out[8];
  while (off < file_size) {
    assert_int_equal(file[off], 0x0F); /* BufferExtents */
    uint64_t bytes = xr_fdr_get64(file + off + 1);
    assert_true(off + 16 + bytes <= file_size);
    assert_true(blocks < 8);
    assert_int_equal(file[off + 16], 0x01); /* NewBuffer, Walltime, Pid */
    assert_int_equal(file[off + 32], 0x09);
    assert_int_equal(file[off + 48], 0x13);
    out[blocks++] = (struct xr_fdr_span){file + off + 16, bytes, 0, 0, 0};
    off += 16 + bytes;
  }
  assert_int_equal(off, file_size);
  xr_fdr_spans_order(out, blocks, 5);
  for (size_t i = 0; i < blocks; i++)
    xr_fdr_span_decode(&out[i], 5, on_record, NULL);
  return blocks;
}

static void expect(const char *const *want, size_t n) {
  for (size_t i = 0; i < n && i < ngot; i++)
    assert_string_equal(got[i], want[i]);
  assert_int_equal(ngot, n);
}

/* An exit whose entry the ring overwrote is dropped; the records after it
 * keep their own times (their deltas counted from the dropped one). */
static void dropped_exit_keeps_times(void **state) {
  (void)state;
  struct in *b = begin(0, 5, 0, 1000);
  fn(b, XR_FDR_FN_EXIT, 5, 10);
  fn(b, XR_FDR_FN_ENTER, 6, 5);
  fn(b, XR_FDR_FN_EXIT, 6, 7);
  b->p = xr_fdr_custom_event(b->p, 2, 3);
  memcpy(b->p, "ab", 2);
  b->p += 2;
  fn(b, XR_FDR_FN_EXIT, 8, 1); /* dropped too */
  b->p = xr_fdr_custom_event(b->p, 2, 4);
  memcpy(b->p, "cd", 2);
  b->p += 2;
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  assert_int_equal(run(&s, 1, NULL, 16384, &st), 1);
  static const char *const want[] = {"5 enter 6 1015", "5 exit 6 1022",
                                     "5 custom ab 1025", "5 custom cd 1030"};
  expect(want, 4);
  assert_int_equal(st.dropped_exits, 2);
}

/* longjmp: the exit of an outer call closes the inner ones at its time,
 * after a custom event that says how many exits unwinding skipped. */
static void unwinding_closes_calls(void **state) {
  (void)state;
  struct in *b = begin(0, 5, 0, 1000);
  fn(b, XR_FDR_FN_ENTER, 1, 0);
  fn(b, XR_FDR_FN_ENTER, 2, 3);
  fn(b, XR_FDR_FN_ENTER, 3, 1);
  fn(b, XR_FDR_FN_EXIT, 1, 4);
  fn(b, XR_FDR_FN_ENTER, 4, 2);
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  run(&s, 1, NULL, 16384, &st);
  static const char *const want[] = {
      "5 enter 1 1000", "5 enter 2 1003", "5 enter 3 1004",
      "5 custom xray-unwound 2 1008", "5 exit 3 1008", "5 exit 2 1008",
      "5 exit 1 1008", "5 enter 4 1010"};
  expect(want, 8);
  assert_int_equal(st.closed, 2);
  assert_int_equal(st.open_at_end, 1);
}

/* The Chrome JSON of a joined file (a snapshot's, read back): the calls
 * the log writer closed are marked `unwound` from its custom event, and
 * calls that really returned at one tick (a coarse clock) are not. */
static void write_json_of_file(char *text, size_t cap) {
  char path[] = "/tmp/xr_log_writer_json.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_true(write(fd, file, file_size) == (ssize_t)file_size);
  close(fd);
  assert_int_equal(xr_fdr_file_write_streams(path, XR_TRACE_OUT_CHROME,
                                             1000000000), 0);
  char json[64];
  snprintf(json, sizeof json, "%s.json", path);
  FILE *f = fopen(json, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, cap - 1, f);
  fclose(f);
  text[n] = '\0';
  unlink(path);
  unlink(json);
}

static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
    n++;
  return n;
}

static void joined_file_json_marks_closed_calls(void **state) {
  (void)state;
  unwinding_closes_calls(state); /* file[] holds the joined log */
  static char text[1 << 14];
  write_json_of_file(text, sizeof text);
  assert_int_equal(count_of(text, "\"ph\":\"X\""), 4);
  assert_int_equal(count_of(text, "\"cut\":\"unwound\""), 2);
  assert_int_equal(count_of(text, "\"cut\":\"open\""), 1); /* 4, entered last */
  assert_int_equal(count_of(text, "xray-unwound"), 0); /* not an event */
}

/* Three calls that return at the same tick, then a longjmp whose closing
 * exits come a tick after the last one: only the two skipped calls are
 * marked. */
static void same_tick_exits_are_not_unwound(void **state) {
  (void)state;
  struct in *b = begin(0, 5, 0, 1000);
  fn(b, XR_FDR_FN_ENTER, 1, 0);
  fn(b, XR_FDR_FN_ENTER, 2, 1);
  fn(b, XR_FDR_FN_ENTER, 3, 1);
  fn(b, XR_FDR_FN_EXIT, 3, 1);
  fn(b, XR_FDR_FN_EXIT, 2, 0); /* same tick */
  fn(b, XR_FDR_FN_ENTER, 6, 0);
  fn(b, XR_FDR_FN_ENTER, 7, 0);
  fn(b, XR_FDR_FN_EXIT, 6, 0); /* longjmp: 7 skipped */
  fn(b, XR_FDR_FN_EXIT, 1, 0); /* same tick as the closing exit */
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  run(&s, 1, NULL, 16384, &st);
  assert_int_equal(st.closed, 1);
  static char text[1 << 14];
  write_json_of_file(text, sizeof text);
  assert_int_equal(count_of(text, "\"ph\":\"X\""), 5);
  assert_int_equal(count_of(text, "\"cut\":\"unwound\""), 1);
  const char *seven = strstr(text, "\"name\":\"fn7\"");
  assert_non_null(seven);
  const char *mark = strstr(text, "\"cut\":\"unwound\"");
  const char *eol = strchr(seven, '\n');
  assert_true(mark > seven && mark < eol); /* the mark is 7's */
}

/* Two buffers of one thread, the second on another CPU more than 2^31
 * ticks later, given in the wrong order: one block, in time order. */
static void buffers_join_in_time_order(void **state) {
  (void)state;
  uint64_t later = 1000 + (1ull << 33);
  struct in *a = begin(0, 5, 0, 1000);
  fn(a, XR_FDR_FN_ENTER, 1, 0);
  fn(a, XR_FDR_FN_ENTER, 2, 9);
  struct in *b = begin(1, 5, 1, later);
  fn(b, XR_FDR_FN_EXIT, 2, 5);
  fn(b, XR_FDR_FN_EXIT, 1, 5);
  struct xr_fdr_span s[2] = {span_of(b), span_of(a)};
  struct xr_fdr_log_stats st;
  assert_int_equal(run(s, 2, NULL, 16384, &st), 1);
  char e2[48], e1[48];
  snprintf(e2, sizeof e2, "5 exit 2 %llu", (unsigned long long)later + 5);
  snprintf(e1, sizeof e1, "5 exit 1 %llu", (unsigned long long)later + 10);
  const char *const want[] = {"5 enter 1 1000", "5 enter 2 1009", e2, e1};
  expect(want, 4);
  assert_int_equal(st.closed + st.dropped_exits + st.open_at_end, 0);
}

/* A thread parked in its first call (a preamble and one 8-byte record)
 * counts: both blocks start with the sync event at the earliest time. */
static void parked_thread_gets_sync(void **state) {
  (void)state;
  struct in *a = begin(0, 7, 0, 500);
  fn(a, XR_FDR_FN_ENTER, 9, 0);
  struct in *b = begin(1, 8, 0, 600);
  fn(b, XR_FDR_FN_ENTER, 3, 1);
  fn(b, XR_FDR_FN_EXIT, 3, 1);
  struct xr_fdr_span s[2] = {span_of(a), span_of(b)};
  struct xr_fdr_log_stats st;
  assert_int_equal(run(s, 2, NULL, 16384, &st), 2);
  static const char *const want[] = {"7 custom xray-sync 500", "7 enter 9 500",
                                     "8 custom xray-sync 500", "8 enter 3 601",
                                     "8 exit 3 602"};
  expect(want, 5);
}

/* The header declares the largest block when it is larger than the
 * configured buffer size (bytes 16-23), so no block exceeds it. */
static void header_declares_largest_block(void **state) {
  (void)state;
  struct in *b = begin(0, 5, 0, 1000);
  for (int i = 0; i < 40; i++)
    fn(b, i & 1 ? XR_FDR_FN_EXIT : XR_FDR_FN_ENTER, 4, 1);
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  run(&s, 1, NULL, 128, &st);
  uint64_t extents = xr_fdr_get64(file + 32 + 1);
  assert_int_equal(extents, 48 + 16 + 40 * 8); /* preamble, NewCPUId, records */
  assert_int_equal(st.largest_block, extents);
  assert_int_equal(xr_fdr_get64(file + 16), extents);
  assert_int_equal(file_size, 32 + 16 + extents);
}

/* With the caller's scratch (snapshots), calls deeper than its stack are
 * written as they are, unchecked, and none is lost. */
static uint8_t scratch[XR_FDR_LOG_SCRATCH] __attribute__((aligned(64)));
static void deep_stack_in_scratch(void **state) {
  (void)state;
  struct in *b = begin(0, 5, 0, 1000);
  enum { DEPTH = 15000 }; /* more than the scratch stack holds */
  for (int i = 0; i < DEPTH; i++)
    fn(b, XR_FDR_FN_ENTER, 1 + i % 7, 1);
  for (int i = DEPTH; i-- > 0;)
    fn(b, XR_FDR_FN_EXIT, 1 + i % 7, 1);
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  run(&s, 1, scratch, 1 << 20, &st);
  assert_int_equal(ngot, 64); /* decoded (the first 64 kept) */
  assert_string_equal(got[0], "5 enter 1 1001");
  assert_int_equal(xr_fdr_get64(file + 32 + 1), 48 + 16 + 2 * DEPTH * 8);
  assert_int_equal(st.closed + st.dropped_exits + st.open_at_end, 0);
}

/* A log of several MiB in many pieces (3 threads, each of several
 * buffers on two CPUs; unwinding, dropped exits and events to fix up, so
 * the generated bytes and the iov lists fill too): the pipelined writer
 * makes the serial one's file, whole, and cut by every kind of limit (in
 * the header, inside a block, at a block's end, inside a later block). */
enum { BIG_SPANS = 12, BIG_SPAN = 1 << 20 };
static void big_log_pipelined_same(void **state) {
  (void)state;
  uint8_t *mem = malloc((size_t)BIG_SPANS * BIG_SPAN);
  assert_non_null(mem);
  struct xr_fdr_span spans[BIG_SPANS];
  uint32_t seed = 12345;
  for (int s = 0; s < BIG_SPANS; s++) {
    uint8_t *start = mem + (size_t)s * BIG_SPAN, *p = start;
    int32_t tid = 100 + s % 3;
    uint64_t tsc = 1000 + (uint64_t)(s / 3) * (3ull << 31);
    p = xr_fdr_preamble(p, 5, tid, 77, 1, 2, (uint16_t)(s & 1), tsc);
    int32_t stack[64];
    int depth = 0;
    while (p + 64 < start + BIG_SPAN - 4096) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 8) % 1000;
      if (r < 3) { /* longjmp: exit an outer call */
        if (depth > 2) {
          depth -= 2;
          p = xr_fdr_function(p, stack[depth - 1], XR_FDR_FN_EXIT, 3);
          depth--;
        }
      } else if (r < 5) { /* an exit whose entry the ring overwrote */
        p = xr_fdr_function(p, 999, XR_FDR_FN_EXIT, 2);
      } else if (r < 7) {
        p = xr_fdr_custom_event(p, 3, 1);
        memcpy(p, "evt", 3);
        p += 3;
      } else if (r < 500 && depth < 64) {
        stack[depth] = 1 + (int32_t)(r % 50);
        p = xr_fdr_function(p, stack[depth++], XR_FDR_FN_ENTER, r % 7);
      } else if (depth > 0) {
        p = xr_fdr_function(p, stack[--depth], XR_FDR_FN_EXIT, r % 5);
      } else { /* a leaf call */
        p = xr_fdr_function(p, 60, XR_FDR_FN_ENTER, 1);
        p = xr_fdr_function(p, 60, XR_FDR_FN_EXIT, 1);
      }
    }
    spans[s] = (struct xr_fdr_span){start, (size_t)(p - start), 0, 0, 0};
  }
  xr_fdr_spans_order(spans, BIG_SPANS, 5);
  struct xr_fdr_log_stats st;
  int rc, err;
  int fd = write_to_file(spans, BIG_SPANS, NULL, 16384, UINT64_MAX, false,
                         &st, &rc, &err);
  off_t size = lseek(fd, 0, SEEK_END);
  close(fd);
  assert_int_equal(rc, 0);
  assert_int_equal(st.blocks, 3);
  assert_true(st.closed > 0 && st.dropped_exits > 0);
  assert_true(size > 4 * BIG_SPAN);
  /* Where the first block ends (a cut inside the second block). */
  fd = write_to_file(spans, BIG_SPANS, NULL, 16384, (uint64_t)size / 2, false,
                     &st, &rc, &err);
  close(fd);
  assert_int_equal(rc, -1);
  assert_int_equal(err, EFBIG);
  assert_int_equal(st.whole_blocks, 1);
  const uint64_t limits[] = {UINT64_MAX, 16, 1000, (uint64_t)size / 5,
                             st.whole_bytes - 1, st.whole_bytes,
                             st.whole_bytes + 1,
                             (uint64_t)size / 2, (uint64_t)size - 1,
                             (uint64_t)size};
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    expect_pipelined_same(spans, BIG_SPANS, 16384, limits[i]);
  free(mem);
}


/* ---- captured argument values -------------------------------------------- */

static void value(struct in *b, uint8_t what, uint8_t format, uint64_t bits) {
  b->p = xr_fdr_call_value(b->p, bits, what, format);
}
/* An xray-args event of values v[0..n) (text of the strings in c). */
static void args_event(struct in *b, const struct xr_arg_call *c, const struct xr_arg_value *v,
                       size_t n, int32_t delta) {
  uint8_t data[1024];
  size_t size = xr_args_event_encode(c, v, n, data, sizeof data);
  assert_true(size > 0);
  b->p = xr_fdr_custom_event(b->p, (int32_t)size, delta);
  memcpy(b->p, data, size);
  b->p += size;
}

/* Values stay with their records whatever the writer does around them: an
 * entry written anew (its delta, after a dropped exit) keeps its
 * CallArguments and its strings' event after it; an exit that closes
 * unwound calls first is followed by its return value; the event of an
 * exit dropped (its entry not kept) goes with it. compiler-rt's argument
 * (bytes 9 and 10 zero) stays an argument. Decoded, each record carries its
 * values (the strings' text from the event), and no event is shown. */
static void values_stay_with_their_records(void **state) {
  (void)state;
  struct xr_arg_call c = {.count = 1};
  c.v[0] = (struct xr_arg_value){0x1234, 0x12, XR_ARGF_S, XR_ARGS_OK, 2, 0};
  memcpy(c.text, "hi", 2);
  struct xr_arg_call r = {.count = 1};
  r.v[0] = (struct xr_arg_value){0x1f, 0x30, XR_ARGF_X, 0, 0, 0};
  struct in *b = begin(0, 5, 0, 1000);
  fn(b, XR_FDR_FN_EXIT, 9, 10);  /* entry not kept: dropped, */
  args_event(b, &r, r.v, 1, 0);  /* and its value with it */
  fn(b, XR_FDR_FN_ENTER_ARG, 2, 5);
  value(b, 0x11, XR_ARGF_D, 5);
  value(b, 0x12, XR_ARGF_S, 0x1234);
  args_event(b, &c, c.v, 1, 0);
  fn(b, XR_FDR_FN_ENTER, 3, 1);
  fn(b, XR_FDR_FN_EXIT, 2, 4);   /* closes 3 first */
  args_event(b, &r, r.v, 1, 0);
  fn(b, XR_FDR_FN_ENTER_ARG, 4, 2);
  b->p = xr_fdr_call_argument(b->p, 0xabc);
  fn(b, XR_FDR_FN_EXIT, 4, 1);
  struct xr_fdr_span s = span_of(b);
  struct xr_fdr_log_stats st;
  run(&s, 1, NULL, 16384, &st);
  static const char *const want[] = {
      "5 enter 2 1015 [11.1.0=5'' 12.5.0=1234'hi']", "5 enter 3 1016",
      "5 custom xray-unwound 1 1020", "5 exit 3 1020",
      "5 exit 2 1020 [30.3.0=1f'']", "5 enter 4 1022 arg=abc", "5 exit 4 1023"};
  expect(want, 7);
  assert_int_equal(st.dropped_exits, 1);
  assert_int_equal(st.closed, 1);
  /* in the file: the CallArguments right after the entry's record */
  const uint8_t *block = file + 32 + 16 + 64; /* extents, preamble, NewCPUId */
  assert_int_equal(xr_fdr_get32(block), (2u << 4) | (3u << 1));
  assert_int_equal(block[8], 0x0D);
  assert_int_equal(block[8 + 9], 0x11);
  assert_int_equal(block[24], 0x0D);
  assert_int_equal(block[24 + 10], XR_ARGF_S);
  assert_int_equal(block[40], 0x0B);
  assert_true(xr_fdr_is_args_event(block + 56, xr_fdr_get32(block + 41)));
}

/* Decoding the buffers as they are (the flush's trace files): an
 * xray-args event that follows no record of its own is not shown; an
 * entry's strings whose event never came read as unreadable. */
static void lone_values_event_not_shown(void **state) {
  (void)state;
  struct xr_arg_call r = {.count = 1};
  r.v[0] = (struct xr_arg_value){7, 0x30, XR_ARGF_D, 0, 0, 0};
  struct in *b = begin(0, 5, 0, 1000);
  b->p = xr_fdr_custom_event(b->p, 3, 1);
  memcpy(b->p, "evt", 3);
  b->p += 3;
  args_event(b, &r, r.v, 1, 2);
  fn(b, XR_FDR_FN_ENTER_ARG, 2, 5);
  value(b, 0x12, XR_ARGF_S, 0x1234);
  fn(b, XR_FDR_FN_EXIT, 2, 1);
  struct xr_fdr_span s = span_of(b);
  xr_fdr_spans_order(&s, 1, 5);
  ngot = 0;
  xr_fdr_span_decode(&s, 5, on_record, NULL);
  static const char *const want[] = {"5 custom evt 1001", "5 enter 2 1008 [12.5.2=1234'']",
                                     "5 exit 2 1009"};
  expect(want, 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dropped_exit_keeps_times),
      cmocka_unit_test(unwinding_closes_calls),
      cmocka_unit_test(joined_file_json_marks_closed_calls),
      cmocka_unit_test(same_tick_exits_are_not_unwound),
      cmocka_unit_test(buffers_join_in_time_order),
      cmocka_unit_test(parked_thread_gets_sync),
      cmocka_unit_test(header_declares_largest_block),
      cmocka_unit_test(deep_stack_in_scratch),
      cmocka_unit_test(big_log_pipelined_same),
      cmocka_unit_test(values_stay_with_their_records),
      cmocka_unit_test(lone_values_event_not_shown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
