/* report.c: line format, verbosity filter, once-only messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "capture.h"
#include "core/base/report.h"

static char expected_prefix[64];

static int setup(void **state) {
  (void)state;
  snprintf(expected_prefix, sizeof expected_prefix, "==%d==XRay: ",
           (int)getpid());
  return 0;
}

static void error_is_printed_at_verbosity_0(void **state) {
  (void)state;
  xr_verbosity = 0;
  capture_begin();
  xr_report(XR_ERROR, "bad value %d", 42);
  const char *out = capture_end();
  char want[128];
  snprintf(want, sizeof want, "%sbad value 42\n", expected_prefix);
  assert_string_equal(out, want);
}

static void info_and_debug_follow_verbosity(void **state) {
  (void)state;
  xr_verbosity = 0;
  capture_begin();
  xr_report(XR_INFO, "info");
  xr_report(XR_DEBUG, "debug");
  assert_string_equal(capture_end(), "");

  xr_verbosity = 1;
  capture_begin();
  xr_report(XR_INFO, "info");
  xr_report(XR_DEBUG, "debug");
  const char *out = capture_end();
  assert_int_equal(count_lines(out), 1);
  assert_non_null(strstr(out, "XRay: info\n"));

  xr_verbosity = 2;
  capture_begin();
  xr_report(XR_INFO, "info");
  xr_report(XR_DEBUG, "debug");
  assert_int_equal(count_lines(capture_end()), 2);
  xr_verbosity = 0;
}

static void trailing_newline_not_doubled(void **state) {
  (void)state;
  capture_begin();
  xr_report(XR_ERROR, "line\n");
  const char *out = capture_end();
  assert_int_equal(count_lines(out), 1);
  assert_int_equal(strlen(out), strlen(expected_prefix) + 5);
}

static void long_message_is_one_truncated_line(void **state) {
  (void)state;
  static char big[10000];
  memset(big, 'x', sizeof big - 1);
  capture_begin();
  xr_report(XR_ERROR, "%s", big);
  const char *out = capture_end();
  assert_int_equal(count_lines(out), 1);
  assert_true(strlen(out) <= 1024);
  assert_int_equal(out[strlen(out) - 1], '\n');
}

static void once_prints_once(void **state) {
  (void)state;
  static int once;
  capture_begin();
  for (int i = 0; i < 3; i++)
    xr_report_once(&once, XR_ERROR, "only once");
  assert_int_equal(count_lines(capture_end()), 1);
}

static void once_filtered_does_not_consume_the_flag(void **state) {
  (void)state;
  static int once;
  xr_verbosity = 0;
  capture_begin();
  xr_report_once(&once, XR_INFO, "hidden");
  assert_string_equal(capture_end(), "");
  xr_verbosity = 1;
  capture_begin();
  xr_report_once(&once, XR_INFO, "shown");
  assert_int_equal(count_lines(capture_end()), 1);
  xr_verbosity = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(error_is_printed_at_verbosity_0),
      cmocka_unit_test(info_and_debug_follow_verbosity),
      cmocka_unit_test(trailing_newline_not_doubled),
      cmocka_unit_test(long_message_is_one_truncated_line),
      cmocka_unit_test(once_prints_once),
      cmocka_unit_test(once_filtered_does_not_consume_the_flag),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
