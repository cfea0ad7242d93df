/* The Chrome trace writer's exact output for hand-made records: complete
 * events at their call's end, the unwound / open / no-entry marks, custom
 * and typed events with escaped payloads, the separator rule (never a
 * trailing comma), and the trace_output option's parser. */
#define _GNU_SOURCE /* memfd_create */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <sys/mman.h>
#include <unistd.h>

#include "export/chrome_trace.h"

static const char *name_of(void *ctx, int32_t fid) {
  (void)ctx;
  static const char *names[] = {"?", "main", "f", "g\"q"};
  return fid >= 0 && fid < 4 ? names[fid] : "?";
}

/* 1 GHz: ticks are nanoseconds. pid 10 is not a live process, so no
 * thread name comes from /proc; tid == pid gets the program's name. */
static char *run(void (*feed)(struct xr_chrome *), char *buf, size_t cap) {
  int fd = memfd_create("chrome", 0);
  assert_true(fd >= 0);
  struct xr_chrome *w = xr_chrome_open_fd(fd, "mem", 1000000000u, name_of, NULL);
  assert_non_null(w);
  int dup_fd = dup(fd);
  feed(w);
  assert_int_equal(xr_chrome_close(w), 0);
  ssize_t n = pread(dup_fd, buf, cap - 1, 0);
  assert_true(n > 0);
  buf[n] = '\0';
  close(dup_fd);
  /* drop the metadata lines (program name depends on the test binary) */
  char *m = strstr(buf, ",\n{\"name\":\"process_name\"");
  char *t = strstr(buf, ",\n{\"name\":\"thread_name\"");
  if (t != NULL && (m == NULL || t < m))
    m = t;
  if (m != NULL)
    strcpy(m, "\n]\n");
  return buf;
}

static void ev(struct xr_chrome *w, int32_t tid, enum xr_tev_kind k,
               int32_t fid, uint64_t tsc) {
  struct xr_tev e = {.kind = k, .fid = fid, .tsc = tsc};
  xr_chrome_add(w, 10, tid, &e);
}

/* main { f { g } } where g's exit is skipped (longjmp to f): the basic
 * mode / FDR flush write g's exit at f's exit time. */
static void feed_unwound(struct xr_chrome *w) {
  ev(w, 11, XR_TEV_ENTER, 1, 1000);
  ev(w, 11, XR_TEV_ENTER, 2, 2000);
  ev(w, 11, XR_TEV_ENTER, 3, 2500);
  ev(w, 11, XR_TEV_EXIT, 3, 4000); /* closed by unwinding: same time */
  ev(w, 11, XR_TEV_EXIT, 2, 4000);
  ev(w, 11, XR_TEV_EXIT, 1, 5500);
}

static void test_unwound_marked(void **state) {
  (void)state;
  char buf[4096];
  assert_string_equal(
      run(feed_unwound, buf, sizeof buf),
      "[\n"
      "{\"name\":\"g\\\"q\",\"ph\":\"X\",\"ts\":2.500,\"dur\":1.500,\"pid\":10,\"tid\":11,\"args\":{\"cut\":\"unwound\"}},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"ts\":2.000,\"dur\":2.000,\"pid\":10,\"tid\":11},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"ts\":1.000,\"dur\":4.500,\"pid\":10,\"tid\":11}\n"
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
      cmocka_unit_test(test_raw_marks_and_events),
      cmocka_unit_test(test_empty_is_valid),
      cmocka_unit_test(test_outputs_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
