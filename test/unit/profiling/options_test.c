/* xray-profiling options: defaults, precedence, output lists, bad values. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiling/profile_outputs.h"
#include "profiling/profiling_options.h"

static struct xr_profiling_flags f;
static unsigned out;
static bool calls;

static int load(const char *env, const char *config, size_t size) {
  if (env != NULL)
    setenv("XRAY_PROFILING_OPTIONS", env, 1);
  else
    unsetenv("XRAY_PROFILING_OPTIONS");
  return xr_profiling_flags_load(&f, config, size, &out, &calls);
}

static void defaults_are_compiler_rt_s(void **state) {
  (void)state;
  assert_int_equal(load(NULL, NULL, 0), 0);
  assert_int_equal(f.per_thread_allocator_max, 16384);
  assert_int_equal(f.global_allocator_max, 33554432);
  assert_int_equal(f.stack_allocator_max, 2097152);
  assert_int_equal(f.grace_period_ms, 100); /* core's quiesce bound, not compiler-rt's 1 */
  assert_false(f.no_flush);
  assert_int_equal(f.buffers_max, 128);
  assert_int_equal(f.max_depth, 1024);
  assert_int_equal(out, XR_PROF_OUT_XRAY);
  assert_false(calls);
}

static void config_wins_over_environment(void **state) {
  (void)state;
  assert_int_equal(load("max_depth=7 no_flush=1", "max_depth=9", 0), 0);
  assert_int_equal(f.max_depth, 9);
  assert_true(f.no_flush);
  /* a sized config need not be NUL-terminated */
  char raw[] = {'m', 'a', 'x', '_', 'd', 'e', 'p', 't', 'h', '=', '5', 'X', 'Y'};
  assert_int_equal(load(NULL, raw, 11), 0);
  assert_int_equal(f.max_depth, 5);
}

static void output_lists(void **state) {
  (void)state;
  assert_int_equal(load(NULL, "profiling_output=xray+folded+report", 0), 0);
  assert_int_equal(out, XR_PROF_OUT_XRAY | XR_PROF_OUT_FOLDED | XR_PROF_OUT_REPORT);
  assert_int_equal(load(NULL, "profiling_output='folded,report'", 0), 0);
  assert_int_equal(out, XR_PROF_OUT_FOLDED | XR_PROF_OUT_REPORT);
  assert_int_equal(load(NULL, "profiling_output=report folded_value=calls", 0), 0);
  assert_int_equal(out, XR_PROF_OUT_REPORT);
  assert_true(calls);
  /* unknown words, an unknown folded_value, an empty list: refused, as
   * every mode refuses a bad value */
  assert_int_equal(load(NULL, "profiling_output=xray+pdf", 0), -1);
  assert_int_equal(load(NULL, "folded_value=bytes", 0), -1);
  assert_int_equal(load(NULL, "profiling_output=''", 0), -1);
  /* the help text and the messages list the table's rows */
  char help[256];
  xr_prof_outputs_help(help, sizeof help);
  assert_string_equal(help, "xray (the log: compiler-rt's blocks), folded "
                            "(<log>.folded), report (<log>.txt) and pprof "
                            "(<log>.pb)");
  /* an over-long config: refused, none of it read */
  static char longer[XR_CONFIG_MAX + 16];
  memset(longer, ' ', sizeof longer - 1);
  memcpy(longer, "max_depth=3", 11);
  assert_int_equal(load(NULL, longer, 0), -1);
  assert_int_equal(f.max_depth, 1024);
  /* sized: the size, not a NUL, ends it */
  assert_int_equal(load(NULL, longer, XR_CONFIG_MAX - 1), 0);
  assert_int_equal(f.max_depth, 3);
}

static void bad_sizes_keep_defaults(void **state) {
  (void)state;
  assert_int_equal(load("per_thread_allocator_max=0 global_allocator_max=lots "
                        "stack_allocator_max=99999999999999999999999 max_depth=-3",
                        NULL, 0),
                   -1); /* refused; the values stay the defaults */
  assert_int_equal(f.per_thread_allocator_max, 16384);
  assert_int_equal(f.global_allocator_max, 33554432);
  assert_int_equal(f.stack_allocator_max, 2097152);
  assert_int_equal(f.max_depth, 1024);
  /* huge: above the accepted range */
  assert_int_equal(load(NULL, "global_allocator_max=18446744073709551615", 0), -1);
  assert_int_equal(f.global_allocator_max, 33554432);
  /* a chunk larger than the global budget cannot work: refused */
  assert_int_equal(load(NULL, "per_thread_allocator_max=1048576 global_allocator_max=65536", 0), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_are_compiler_rt_s),
      cmocka_unit_test(config_wins_over_environment),
      cmocka_unit_test(output_lists),
      cmocka_unit_test(bad_sizes_keep_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
