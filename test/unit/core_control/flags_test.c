/* The XRAY_OPTIONS table and its loader: defaults (compiler-rt's xray_flags.inc), the
 * program's __xray_default_options() hook, the environment winning, and
 * xr_getenv before libc has set `environ`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "capture.h"
#include "core/options/options.h"
#include "core/base/report.h"

extern char **environ;

/* The program's hook, as a user would write it. */
static const char *program_defaults;
const char *__xray_default_options(void) { return program_defaults; }

static int reset(void **state) {
  (void)state;
  program_defaults = NULL;
  unsetenv("XRAY_OPTIONS");
  xr_verbosity = 0;
  return 0;
}

static void table_defaults_match_compiler_rt(void **state) {
  (void)state;
  memset(&xr_flags, 0x5a, sizeof xr_flags);
  xr_options_set_defaults(&xr_flags_table, &xr_flags);
  assert_false(xr_flags.patch_premain);
  assert_string_equal(xr_flags.xray_mode, "");
  assert_string_equal(xr_flags.xray_logfile_base, "xray-log.");
  assert_int_equal(xr_flags.xray_page_size_override, 0);
  assert_false(xr_flags.xray_naive_log);
  assert_int_equal(xr_flags.xray_naive_log_func_duration_threshold_us, 5);
  assert_int_equal(xr_flags.xray_naive_log_max_stack_depth, 64);
  assert_int_equal(xr_flags.xray_naive_log_thread_buffer_size, 1024);
  assert_false(xr_flags.xray_fdr_log);
  assert_int_equal(xr_flags.xray_fdr_log_func_duration_threshold_us, 5);
  assert_int_equal(xr_flags.xray_fdr_log_grace_period_us, 0);
  assert_int_equal(xr_flags.xray_fdr_log_grace_period_ms, 100);
  assert_int_equal(xr_flags.verbosity, 0);
  assert_string_equal(xr_flags.xray_patch, "");
  assert_string_equal(xr_flags.xray_skip, "");
  assert_string_equal(xr_flags.xray_budget, "");
  assert_string_equal(xr_flags.xray_budget_keep, "");
  assert_string_equal(xr_flags.xray_args, "");
}

static void every_row_has_a_help_line_and_a_valid_default(void **state) {
  (void)state;
  /* 13 of compiler-rt + xray_patch, xray_skip, xray_control, xray_control_dir,
   * xray_budget, xray_budget_keep, xray_args */
  assert_int_equal(xr_flags_table.count, 20);
  assert_string_equal(xr_flags_table.env_name, "XRAY_OPTIONS");
  capture_begin();
  xr_options_set_defaults(&xr_flags_table, &xr_flags);
  assert_string_equal(capture_end(), "");
  for (size_t i = 0; i < xr_flags_table.count; i++) {
    assert_non_null(xr_flags_table.options[i].help);
    assert_true(strlen(xr_flags_table.options[i].help) > 10);
  }
}

static void load_with_nothing_set_gives_defaults(void **state) {
  (void)state;
  capture_begin();
  xr_flags_load();
  assert_string_equal(capture_end(), "");
  assert_false(xr_flags.patch_premain);
  assert_string_equal(xr_flags.xray_mode, "");
  assert_int_equal(xr_verbosity, 0);
}

static void program_hook_applies(void **state) {
  (void)state;
  program_defaults = "patch_premain=true:xray_mode=xray-fdr:verbosity=1";
  xr_flags_load();
  assert_true(xr_flags.patch_premain);
  assert_string_equal(xr_flags.xray_mode, "xray-fdr");
  assert_int_equal(xr_verbosity, 1);
}

static void environment_wins_over_program_hook(void **state) {
  (void)state;
  program_defaults = "patch_premain=true:xray_mode=xray-fdr";
  setenv("XRAY_OPTIONS", "xray_mode=xray-basic xray_logfile_base=out/x-", 1);
  xr_flags_load();
  assert_true(xr_flags.patch_premain); /* only the hook set it */
  assert_string_equal(xr_flags.xray_mode, "xray-basic");
  assert_string_equal(xr_flags.xray_logfile_base, "out/x-");
}

static void bad_env_value_keeps_hook_value(void **state) {
  (void)state;
  program_defaults = "xray_fdr_log_grace_period_ms=7";
  setenv("XRAY_OPTIONS", "xray_fdr_log_grace_period_ms=abc patch_premain=1", 1);
  capture_begin();
  xr_flags_load();
  const char *err = capture_end();
  assert_int_equal(xr_flags.xray_fdr_log_grace_period_ms, 7);
  assert_true(xr_flags.patch_premain);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "XRAY_OPTIONS: bad value 'abc' for int option "
                              "'xray_fdr_log_grace_period_ms'"));
  assert_non_null(strstr(err, "keeping '7'"));
}

static void unknown_listed_only_when_final_verbosity_allows(void **state) {
  (void)state;
  setenv("XRAY_OPTIONS", "log_path=stderr verbosity=1", 1);
  capture_begin();
  xr_flags_load();
  const char *err = capture_end();
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "XRAY_OPTIONS: ignoring 1 unknown flag(s): "
                              "'log_path'"));
  setenv("XRAY_OPTIONS", "log_path=stderr", 1);
  capture_begin();
  xr_flags_load();
  assert_string_equal(capture_end(), "");
}

static void reload_starts_from_defaults(void **state) {
  (void)state;
  setenv("XRAY_OPTIONS", "xray_naive_log=true", 1);
  xr_flags_load();
  assert_true(xr_flags.xray_naive_log);
  unsetenv("XRAY_OPTIONS");
  xr_flags_load();
  assert_false(xr_flags.xray_naive_log);
}

static void getenv_uses_saved_envp_when_environ_is_null(void **state) {
  (void)state;
  char *fake[] = {"XRAY_OPTIONSX=wrong", "XRAY=also-wrong",
                  "XRAY_OPTIONS=verbosity=2", NULL};
  char **real = environ;
  xr_set_envp(fake);
  environ = NULL; /* as in .preinit_array of a dynamic executable */
  const char *got = xr_getenv("XRAY_OPTIONS");
  const char *missing = xr_getenv("XRAY_FDR_OPTIONS");
  xr_flags_load();
  environ = real;
  xr_set_envp(NULL);
  assert_string_equal(got, "verbosity=2");
  assert_null(missing);
  assert_int_equal(xr_flags.verbosity, 2);
  xr_verbosity = 0;
}

static void getenv_follows_setenv_after_start(void **state) {
  (void)state;
  char *fake[] = {"XRAY_FDR_OPTIONS=old", NULL};
  xr_set_envp(fake);
  setenv("XRAY_FDR_OPTIONS", "new", 1);
  assert_string_equal(xr_getenv("XRAY_FDR_OPTIONS"), "new");
  unsetenv("XRAY_FDR_OPTIONS");
  assert_null(xr_getenv("XRAY_FDR_OPTIONS"));
  xr_set_envp(NULL);
}

int main(void) {
#define T(f) cmocka_unit_test_setup(f, reset)
  const struct CMUnitTest tests[] = {
      T(table_defaults_match_compiler_rt),
      T(every_row_has_a_help_line_and_a_valid_default),
      T(load_with_nothing_set_gives_defaults),
      T(program_hook_applies),
      T(environment_wins_over_program_hook),
      T(bad_env_value_keeps_hook_value),
      T(unknown_listed_only_when_final_verbosity_allows),
      T(reload_starts_from_defaults),
      T(getenv_uses_saved_envp_when_environ_is_null),
      T(getenv_follows_setenv_after_start),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
