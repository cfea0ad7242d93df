/* Basic mode options: defaults, XRAY_BASIC_OPTIONS, the legacy
 * xray_naive_log_* fallback when it is unset or empty, the config string on
 * top, sized configs, bad values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "basic/basic_options.h"
#include "core/base/report.h"

static void load_flags(const char *xray_options) {
  if (xray_options)
    setenv("XRAY_OPTIONS", xray_options, 1);
  else
    unsetenv("XRAY_OPTIONS");
  xr_flags_load();
}

static int reset(void **state) {
  (void)state;
  unsetenv("XRAY_BASIC_OPTIONS");
  load_flags(NULL);
  return 0;
}

static void defaults(void **state) {
  (void)state;
  struct xr_basic_options o;
  xr_basic_options_load(&o, NULL, 0);
  assert_int_equal(o.func_duration_threshold_us, 5);
  assert_int_equal(o.max_stack_depth, 64);
  assert_int_equal(o.thread_buffer_size, 1024);
}

static void environment(void **state) {
  (void)state;
  setenv("XRAY_BASIC_OPTIONS",
         "func_duration_threshold_us=0:max_stack_depth=3,thread_buffer_size=16",
         1);
  struct xr_basic_options o;
  xr_basic_options_load(&o, "", 0);
  assert_int_equal(o.func_duration_threshold_us, 0);
  assert_int_equal(o.max_stack_depth, 3);
  assert_int_equal(o.thread_buffer_size, 16);
}

static void legacy_flags_when_unset_or_empty(void **state) {
  (void)state;
  load_flags("xray_naive_log_func_duration_threshold_us=9 "
             "xray_naive_log_max_stack_depth=7 "
             "xray_naive_log_thread_buffer_size=33");
  struct xr_basic_options o;
  xr_basic_options_load(&o, NULL, 0);
  assert_int_equal(o.func_duration_threshold_us, 9);
  assert_int_equal(o.max_stack_depth, 7);
  assert_int_equal(o.thread_buffer_size, 33);
  setenv("XRAY_BASIC_OPTIONS", "", 1);
  xr_basic_options_load(&o, NULL, 0);
  assert_int_equal(o.max_stack_depth, 7);
  /* A non-empty XRAY_BASIC_OPTIONS replaces the legacy values entirely. */
  setenv("XRAY_BASIC_OPTIONS", "max_stack_depth=5", 1);
  xr_basic_options_load(&o, NULL, 0);
  assert_int_equal(o.func_duration_threshold_us, 5);
  assert_int_equal(o.max_stack_depth, 5);
  assert_int_equal(o.thread_buffer_size, 1024);
}

static void config_wins_over_environment(void **state) {
  (void)state;
  setenv("XRAY_BASIC_OPTIONS", "max_stack_depth=3 thread_buffer_size=16", 1);
  struct xr_basic_options o;
  xr_basic_options_load(&o, "max_stack_depth=9", 0);
  assert_int_equal(o.max_stack_depth, 9);
  assert_int_equal(o.thread_buffer_size, 16);
}

static void sized_config_needs_no_terminator(void **state) {
  (void)state;
  static const char cfg[] = "max_stack_depth=12max_stack_depth=99";
  struct xr_basic_options o;
  xr_basic_options_load(&o, cfg, 18); /* "max_stack_depth=12" */
  assert_int_equal(o.max_stack_depth, 12);
}

static void bad_values_keep_previous(void **state) {
  (void)state;
  int saved = xr_verbosity;
  setenv("XRAY_BASIC_OPTIONS", "max_stack_depth=3", 1);
  struct xr_basic_options o;
  /* Reported on stderr (expected noise); the values stay. */
  xr_basic_options_load(&o, "max_stack_depth=abc thread_buffer_size=1 "
                            "func_duration_threshold_us=-4", 0);
  assert_int_equal(o.max_stack_depth, 3);
  assert_int_equal(o.thread_buffer_size, 1024); /* below the minimum of 2 */
  assert_int_equal(o.func_duration_threshold_us, 5);
  xr_verbosity = saved;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(defaults, reset),
      cmocka_unit_test_setup(environment, reset),
      cmocka_unit_test_setup(legacy_flags_when_unset_or_empty, reset),
      cmocka_unit_test_setup(config_wins_over_environment, reset),
      cmocka_unit_test_setup(sized_config_needs_no_terminator, reset),
      cmocka_unit_test_setup(bad_values_keep_previous, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
