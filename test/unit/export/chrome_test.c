/* The Chrome trace writer's exact output for hand-made records: complete
 * events at their call's end, the unwound / open / no-entry marks, custom
 * and typed events with escaped payloads, argument values in a call's
 * args, the separator rule (never a trailing comma), and the trace_output
 * option's parser. */
#define _GNU_SOURCE /* memfd_create */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/mman.h>
#include <unistd.h>

#include "export/chrome_trace.h"
#include "export/trace_formats.h"
#include "xray/xray_version.h"

static const char *name_of(void *ctx, int32_t fid) {
  (void)ctx;
  static const char *names[] = {"?", "main", "f", "g\"q"};
  return fid >= 0 && fid < 4 ? names[fid] : "?";
}

/* Names come from the context's callbacks only (the writer reads no
 * runtime state): thread 11 is "worker", the others have none. */
static const char *thread_name_of(void *ctx, int32_t pid, int32_t tid,
                                  char *buf, size_t cap) {
  (void)ctx;
  (void)pid;
  (void)buf;
  (void)cap;
  return tid == 11 ? "worker" : NULL;
}

static const char *process_name_of(void *ctx, int32_t pid) {
  (void)ctx;
  (void)pid;
  return "prog";
}

static char *run_whole(void (*feed)(struct xr_chrome *), char *buf,
                       size_t cap, uint64_t hz, uint64_t base) {
  int fd = memfd_create("chrome", 0);
  assert_true(fd >= 0);
  struct xr_trace_context c = {.frequency_hz = hz,
                               .base_ticks = base,
                               .name = name_of,
                               .thread_name = thread_name_of,
                               .process_name = process_name_of};
  struct xr_chrome *w = xr_chrome_open_fd(fd, "mem", &c);
  assert_non_null(w);
  int dup_fd = dup(fd);
  feed(w);
  assert_int_equal(xr_chrome_close(w), 0);
  ssize_t n = pread(dup_fd, buf, cap - 1, 0);
  assert_true(n > 0);
  buf[n] = '\0';
  close(dup_fd);
  return buf;
}

static char *run_at(void (*feed)(struct xr_chrome *), char *buf, size_t cap,
                    uint64_t hz, uint64_t base) {
  run_whole(feed, buf, cap, hz, base);
  /* drop the metadata lines (program name depends on the test binary) */
  char *m = strstr(buf, ",\n{\"name\":\"process_name\"");
  char *t = strstr(buf, ",\n{\"name\":\"thread_name\"");
  if (t != NULL && (m == NULL || t < m))
    m = t;
  if (m != NULL)
    strcpy(m, "\n]\n");
  return buf;
}

/* 1 GHz from 0: ticks are nanoseconds. */
static char *run(void (*feed)(struct xr_chrome *), char *buf, size_t cap) {
  return run_at(feed, buf, cap, 1000000000u, 0);
}

static void ev(struct xr_chrome *w, int32_t tid, enum xr_tev_kind k,
               int32_t fid, uint64_t tsc) {
  struct xr_tev e = {.kind = k, .fid = fid, .tsc = tsc};
  xr_chrome_add(w, 10, tid, &e);
}

/* main { f { g } } on thread 11, at the ticks of `nest`; g's exit is
 * flagged as written while unwinding when nest.g_flagged. */
struct nest {
  uint64_t main_in, f_in, g_in, g_out, f_out, main_out;
  bool g_flagged;
};
static struct nest nest;

static void feed_nest(struct xr_chrome *w) {
  ev(w, 11, XR_TEV_ENTER, 1, nest.main_in);
  ev(w, 11, XR_TEV_ENTER, 2, nest.f_in);
  ev(w, 11, XR_TEV_ENTER, 3, nest.g_in);
  struct xr_tev g = {.kind = XR_TEV_EXIT, .fid = 3, .tsc = nest.g_out,
                     .unwound = nest.g_flagged};
  xr_chrome_add(w, 10, 11, &g);
  ev(w, 11, XR_TEV_EXIT, 2, nest.f_out);
  ev(w, 11, XR_TEV_EXIT, 1, nest.main_out);
}

/* g's exit is skipped (longjmp to f): the basic mode writes it, flagged,
 * at f's exit time. */
static void test_unwound_marked(void **state) {
  (void)state;
  char buf[4096];
  nest = (struct nest){1000, 2000, 2500, 4000, 4000, 5500, true};
  assert_string_equal(
      run(feed_nest, buf, sizeof buf),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":2.500,\"dur\":1.500,\"pid\":10,\"tid\":11,\"args\":{\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":2.000,\"dur\":2.000,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":1.000,\"dur\":4.500,\"pid\":10,\"tid\":11}\n"
      "]\n");
}

/* 25 MHz (40 ns a tick, some AArch64 servers' generic timer): g and f
 * really return back to back, within one tick. Neither is marked: only a
 * flagged exit is. */
static void test_same_tick_exits_not_marked(void **state) {
  (void)state;
  char buf[4096];
  nest = (struct nest){100, 200, 250, 400, 400, 550, false};
  assert_string_equal(
      run_at(feed_nest, buf, sizeof buf, 25000000u, 0),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":10.000,\"dur\":6.000,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":8.000,\"dur\":8.000,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":4.000,\"dur\":18.000,\"pid\":10,\"tid\":11}\n"
      "]\n");
}

/* The flag alone marks, whatever the ticks: here g's flagged exit and f's
 * exit are a tick apart. */
static void test_flagged_marked_at_any_frequency(void **state) {
  (void)state;
  char buf[4096];
  nest = (struct nest){100, 200, 250, 400, 401, 550, true};
  assert_string_equal(
      run_at(feed_nest, buf, sizeof buf, 25000000u, 0),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":10.000,\"dur\":6.000,\"pid\":10,\"tid\":11,\"args\":{\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":8.000,\"dur\":8.040,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":4.000,\"dur\":18.000,\"pid\":10,\"tid\":11}\n"
      "]\n");
  assert_string_equal(
      run(feed_nest, buf, sizeof buf),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":0.250,\"dur\":0.150,\"pid\":10,\"tid\":11,\"args\":{\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":0.200,\"dur\":0.201,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":0.100,\"dur\":0.450,\"pid\":10,\"tid\":11}\n"
      "]\n");
}

/* Raw FDR buffers: g's exit missing, f's exit finds it on the stack; a
 * call still open at the end; an exit whose entry was lost. */
static void feed_raw(struct xr_chrome *w) {
  ev(w, 12, XR_TEV_EXIT, 3, 1500); /* entry lost (ring) */
  ev(w, 12, XR_TEV_ENTER, 2, 2000);
  ev(w, 12, XR_TEV_ENTER, 3, 2100);
  ev(w, 12, XR_TEV_EXIT, 2, 3000); /* g skipped */
  ev(w, 12, XR_TEV_ENTER, 1, 3500); /* still open at 4000 */
  struct xr_tev c = {.kind = XR_TEV_CUSTOM, .tsc = 4000,
                     .data = "a\"\\\n\xff", .size = 5};
  xr_chrome_add(w, 10, 12, &c);
  struct xr_tev t = {.kind = XR_TEV_TYPED, .tsc = 4000, .event_type = 7,
                     .data = "x", .size = 1};
  xr_chrome_add(w, 10, 12, &t);
}

static void test_raw_marks_and_events(void **state) {
  (void)state;
  char buf[4096];
  assert_string_equal(
      run(feed_raw, buf, sizeof buf),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":1.500,\"dur\":0.000,\"pid\":10,\"tid\":12,\"args\":{\"cut\":\"no-entry\"}},\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":2.100,\"dur\":0.900,\"pid\":10,\"tid\":12,\"args\":{\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":2.000,\"dur\":1.000,\"pid\":10,\"tid\":12},\n"
      "{\"name\":\"custom event\",\"ph\":\"i\",\"s\":\"t\",\"ts\":4.000,\"pid\":10,\"tid\":12,\"args\":{\"data\":\"a\\\"\\\\\\u000a\\u00ff\"}},\n"
      "{\"name\":\"typed event\",\"ph\":\"i\",\"s\":\"t\",\"ts\":4.000,\"pid\":10,\"tid\":12,\"args\":{\"type\":7,\"data\":\"x\"}},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":3.500,\"dur\":0.500,\"pid\":10,\"tid\":12,\"args\":{\"cut\":\"open\"}}\n"
      "]\n");
}

static void feed_nothing(struct xr_chrome *w) { (void)w; }

static void test_empty_is_valid(void **state) {
  (void)state;
  char buf[64];
  assert_string_equal(run(feed_nothing, buf, sizeof buf), "[\n]\n");
}

/* A slow counter far from zero: qemu-aarch64's generic timer runs at
 * 62.5 MHz (16 ns a tick) and reads about 1.1e17 (its host's clock), real
 * hardware's reads ticks since boot. A JSON reader parses ts as a double:
 * microseconds near 1.8e15 keep only quarters of a microsecond, so a call
 * that ends one tick before its caller could read as ending after it.
 * Each ts and dur must reach a double reader to the nanosecond, and the
 * child must end before its parent as read. */
#define SLOW_HZ 62500000u
#define SLOW_T0 ((uint64_t)1795719926 * SLOW_HZ)
static void feed_slow(struct xr_chrome *w) {
  ev(w, 13, XR_TEV_ENTER, 1, SLOW_T0 + 7);
  ev(w, 13, XR_TEV_ENTER, 2, SLOW_T0 + 9);
  ev(w, 13, XR_TEV_EXIT, 2, SLOW_T0 + 100);
  ev(w, 13, XR_TEV_EXIT, 1, SLOW_T0 + 101);
}

/* The number after `key` in line: exact nanoseconds from its digits, and
 * what a reader that parses it as a double gets (rounded to a ns). */
static void read_us(const char *line, const char *key, long long *exact,
                    long long *as_double) {
  const char *p = strstr(line, key);
  assert_non_null(p);
  p += strlen(key);
  char *end;
  double d = strtod(p, &end);
  long long ns = 0;
  bool neg = *p == '-';
  for (const char *q = p + neg; q < end; q++)
    if (*q != '.')
      ns = ns * 10 + (*q - '0');
  assert_int_equal(end - strchr(p, '.'), 4); /* three decimals */
  *exact = neg ? -ns : ns;
  *as_double = (long long)(d * 1000.0 + (d < 0 ? -0.5 : 0.5));
}

static void test_slow_counter_nests(void **state) {
  (void)state;
  char buf[4096];
  run_at(feed_slow, buf, sizeof buf, SLOW_HZ, SLOW_T0 - 5 * (uint64_t)SLOW_HZ);
  long long end[2], exact, read;
  int n = 0;
  for (char *line = strstr(buf, "{\"name\""); line != NULL;
       line = strstr(line + 1, "{\"name\""), n++) {
    assert_true(n < 2);
    long long ts, dur;
    read_us(line, "\"ts\":", &exact, &read);
    assert_int_equal(read, exact);
    ts = exact;
    read_us(line, "\"dur\":", &exact, &read);
    assert_int_equal(read, exact);
    dur = exact;
    end[n] = ts + dur;
  }
  assert_int_equal(n, 2);
  assert_true(end[0] < end[1]); /* the child (written first) ends first */
  assert_int_equal(end[1] - end[0], 16);
}

/* An event before time 0 (the clock's start; not expected) still gets
 * the floor of its time: monotone, negative. */
static void feed_early(struct xr_chrome *w) {
  ev(w, 14, XR_TEV_ENTER, 2, SLOW_T0 - 1);
  ev(w, 14, XR_TEV_EXIT, 2, SLOW_T0 + 1);
}

static void test_before_time_zero(void **state) {
  (void)state;
  char buf[4096];
  assert_string_equal(
      run_at(feed_early, buf, sizeof buf, SLOW_HZ, SLOW_T0),
      "[\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":-0.016,\"dur\":0.032,\"pid\":10,\"tid\":14}\n"
      "]\n");
}

/* What the mode dropped is said in the file (at the trace's last time when
 * the mode gives none), and the names come from the context. */
static void feed_drops(struct xr_chrome *w) {
  ev(w, 11, XR_TEV_ENTER, 2, 1000);
  ev(w, 11, XR_TEV_EXIT, 2, 3000);
  struct xr_tev d = {.kind = XR_TEV_DROPPED, .arg = 42,
                     .data = "nested events"};
  xr_chrome_add(w, 10, 0, &d);
  struct xr_tev none = {.kind = XR_TEV_DROPPED, .arg = 0, .data = "x"};
  xr_chrome_add(w, 10, 0, &none); /* nothing lost: nothing said */
}

static void test_drops_and_names(void **state) {
  (void)state;
  char buf[2048];
  assert_string_equal(
      run_whole(feed_drops, buf, sizeof buf, 1000000000u, 0),
      "[\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":1.000,\"dur\":2.000,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"xray dropped\",\"ph\":\"i\",\"s\":\"p\",\"ts\":3.000,\"pid\":10,\"tid\":10,\"args\":{\"what\":\"nested events\",\"count\":42}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":10,\"tid\":11,\"args\":{\"name\":\"worker\"}},\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":10,\"tid\":10,\"args\":{\"name\":\"prog\",\"xray_runtime\":\"" XRAY_RUNTIME_VERSION "\"}}\n"
      "]\n");
}

/* Argument values: f's entry has arguments of each kind of JSON value,
 * g's (unwound by f's exit) a cut string and a NULL one; f's exit has a
 * return value, which goes to f, not to g; main's exit, whose entry the
 * trace lost (no-entry), has one too. */
static void value(struct xr_arg_call *c, uint8_t what, uint8_t format, uint64_t bits,
                  uint8_t status, const char *text) {
  size_t at = 0;
  for (unsigned i = 0; i < c->count; i++)
    at += c->v[i].len;
  size_t len = strlen(text);
  c->v[c->count++] = (struct xr_arg_value){bits, what, format, status, (uint8_t)len,
                                           (uint16_t)at};
  memcpy(c->text + at, text, len);
}

static void feed_values(struct xr_chrome *w) {
  static struct xr_arg_call f_in, g_in, f_out, main_out;
  memset(&f_in, 0, sizeof f_in);
  memset(&g_in, 0, sizeof g_in);
  memset(&f_out, 0, sizeof f_out);
  memset(&main_out, 0, sizeof main_out);
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, (uint64_t)-42, 0, "");
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_P, 0xdeadbeef, 0, "");
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_S, 0x1000, XR_ARGS_OK, "a\"b\\\x01");
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_FP, 1), XR_ARGF_F, 0x8000000000000000ull, 0, "");
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_FP, 2), XR_ARGF_F32, 0x7fc00001u, 0, "");
  value(&f_in, XR_ARG_WHAT(XR_ARG_KIND_FP, 3), XR_ARGF_F, 0x3ff199999999999aull, 0, "");
  value(&g_in, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_S, 0x2000, XR_ARGS_CUT, "xy");
  value(&g_in, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_S, 0, XR_ARGS_NULL, "");
  value(&f_out, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_U, UINT64_MAX, 0, "");
  value(&main_out, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_X, 0x1f, 0, "");
  struct xr_tev e = {.kind = XR_TEV_ENTER, .fid = 2, .tsc = 2000, .call = &f_in};
  xr_chrome_add(w, 10, 11, &e);
  e = (struct xr_tev){.kind = XR_TEV_ENTER, .fid = 3, .tsc = 2500, .call = &g_in};
  xr_chrome_add(w, 10, 11, &e);
  e = (struct xr_tev){.kind = XR_TEV_EXIT, .fid = 2, .tsc = 4000, .call = &f_out};
  xr_chrome_add(w, 10, 11, &e);
  e = (struct xr_tev){.kind = XR_TEV_EXIT, .fid = 1, .tsc = 5000, .call = &main_out};
  xr_chrome_add(w, 10, 11, &e);
}

static void test_values(void **state) {
  (void)state;
  char buf[4096];
  assert_string_equal(
      run(feed_values, buf, sizeof buf),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":2.500,\"dur\":1.500,\"pid\":10,\"tid\":11,"
      "\"args\":{\"arg1\":\"xy\",\"arg1.status\":\"cut\",\"arg2\":null,\"arg2.status\":\"null\","
      "\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":2.000,\"dur\":2.000,\"pid\":10,\"tid\":11,"
      "\"args\":{\"arg1\":-42,\"arg2\":\"0xdeadbeef\",\"arg3\":\"a\\\"b\\\\\\u0001\","
      "\"fparg1\":-0.0,\"fparg2\":\"nan:0x7fc00001\",\"fparg3\":1.1000000000000001,"
      "\"retval\":18446744073709551615}},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":2.000,\"dur\":3.000,\"pid\":10,\"tid\":11,"
      "\"args\":{\"retval\":\"0x1f\",\"cut\":\"no-entry\"}}\n"
      "]\n");
}

static void test_outputs_parse(void **state) {
  (void)state;
  assert_int_equal(xr_trace_outputs_parse("xray"), XR_TRACE_OUT_XRAY);
  assert_int_equal(xr_trace_outputs_parse("chrome"), XR_TRACE_OUT_CHROME);
  assert_int_equal(xr_trace_outputs_parse("xray+chrome"),
                   XR_TRACE_OUT_XRAY | XR_TRACE_OUT_CHROME);
  assert_int_equal(xr_trace_outputs_parse("chrome,xray"),
                   XR_TRACE_OUT_XRAY | XR_TRACE_OUT_CHROME);
  assert_int_equal(xr_trace_outputs_parse("json"), 0);
  assert_int_equal(xr_trace_outputs_parse(""), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unwound_marked),
      cmocka_unit_test(test_same_tick_exits_not_marked),
      cmocka_unit_test(test_flagged_marked_at_any_frequency),
      cmocka_unit_test(test_raw_marks_and_events),
      cmocka_unit_test(test_empty_is_valid),
      cmocka_unit_test(test_slow_counter_nests),
      cmocka_unit_test(test_before_time_zero),
      cmocka_unit_test(test_drops_and_names),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_outputs_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
