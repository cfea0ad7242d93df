/* The table of trace_output words and the writers of the decoded event
 * stream (lib/export/trace_formats.c): words parse to their rows' bits, the
 * messages list every word, and a snapshot's temporary file is renamed over
 * its final name when whole. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "export/trace_formats.h"

static void words_are_rows(void **state) {
  (void)state;
  assert_int_equal(xr_trace_outputs_parse("xray+chrome"),
                   XR_TRACE_OUT_XRAY | XR_TRACE_OUT_CHROME);
  assert_int_equal(xr_trace_outputs_parse("xray+perfetto"),
                   XR_TRACE_OUT_XRAY | XR_TRACE_OUT_PERFETTO);
  assert_int_equal(xr_trace_outputs_parse("chrome+perfetto"),
                   XR_TRACE_OUT_CHROME | XR_TRACE_OUT_PERFETTO);
  assert_int_equal(xr_trace_outputs_parse("pftrace"), 0);
  assert_string_equal(xr_trace_outputs_words(), "xray, chrome and perfetto");
  char help[256];
  xr_trace_outputs_help(help, sizeof help);
  assert_string_equal(help, "xray (the log), chrome (Chrome trace events "
                            "for Perfetto: <log>.json) and perfetto (a "
                            "native Perfetto trace: <log>.pftrace)");
  xr_trace_outputs_files(XR_TRACE_OUT_XRAY | XR_TRACE_OUT_CHROME, "d/log",
                         help, sizeof help);
  assert_string_equal(help, "chrome ('d/log.json')");
  xr_trace_outputs_files(XR_TRACE_OUT_CHROME | XR_TRACE_OUT_PERFETTO, "d/log",
                         help, sizeof help);
  assert_string_equal(help, "chrome ('d/log.json') and perfetto "
                            "('d/log.pftrace')");
  assert_true(xr_trace_outputs_streamed(XR_TRACE_OUT_PERFETTO));
  xr_trace_outputs_files(XR_TRACE_OUT_XRAY, "d/log", help, sizeof help);
  assert_string_equal(help, "");
  assert_false(xr_trace_outputs_streamed(XR_TRACE_OUT_XRAY));
  assert_true(xr_trace_outputs_streamed(XR_TRACE_OUT_CHROME));
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* A temporary writer: `<log>.json.part` while open, `<log>.json` after. */
static void temp_file_renamed_when_whole(void **state) {
  (void)state;
  char dir[] = "/tmp/xr-formats-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char log[128], part[160], done[160];
  snprintf(log, sizeof log, "%s/snap", dir);
  snprintf(part, sizeof part, "%s.json.part", log);
  snprintf(done, sizeof done, "%s.json", log);
  struct xr_trace_writers w;
  assert_int_equal(xr_trace_writers_open(&w, XR_TRACE_OUT_XRAY |
                                                 XR_TRACE_OUT_CHROME,
                                         log, 1000000000u,
                                         XR_TRACE_IDS_PACKED, true),
                   1);
  assert_true(exists(part));
  assert_false(exists(done));
  struct xr_tev e = {.kind = XR_TEV_ENTER, .fid = 7, .tsc = 1000};
  xr_trace_writers_event(&w, 10, 11, &e);
  e.kind = XR_TEV_EXIT;
  e.tsc = 3000;
  xr_trace_writers_event(&w, 10, 11, &e);
  assert_int_equal(xr_trace_writers_close(&w), 0);
  assert_false(exists(part));
  assert_true(exists(done));
  char text[4096] = {0};
  FILE *f = fopen(done, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  assert_true(n > 0);
  /* No name table in this test program: ids are named fn<id>. */
  assert_non_null(strstr(text, "{\"name\":\"fn7\",\"ph\":\"X\",\"ts\":1.000,"
                               "\"dur\":2.000,\"pid\":10,\"tid\":11}"));
  unlink(done);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(words_are_rows),
      cmocka_unit_test(temp_file_renamed_when_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
