/* The quiesce bound, one rule for every mode: core's xr_quiesce_bound_ms
 * (exact values at the default, the minimum, the maximum and around them),
 * and each mode's finalize/flush asking core for it: the wait each mode
 * starts is caught at xr_quiesce_deadline (--wrap) while basic, FDR and
 * profiling run through init, finalize and flush with grace_period_ms set
 * in its config, left at its default, or (FDR) given by the legacy
 * xray_fdr_log_grace_period_ms. No file is written and nothing is timed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/options/options.h"
#include "core/thread/quiesce.h"
#include "xray/xray_log_interface.h"

/* Each wait a mode starts: how long it may last, and how many were started. */
static uint64_t waited_ns;
static int waits;
uint64_t __real_xr_quiesce_deadline(uint64_t timeout_ns);
uint64_t __wrap_xr_quiesce_deadline(uint64_t timeout_ns) {
  waited_ns = timeout_ns;
  waits++;
  return __real_xr_quiesce_deadline(timeout_ns);
}

static void core_rule(void **s) {
  (void)s;
  assert_int_equal(XR_QUIESCE_BOUND_DEFAULT_MS, 100);
  assert_int_equal(XR_QUIESCE_BOUND_MIN_MS, 10);
  assert_int_equal(XR_QUIESCE_BOUND_MAX_MS, 10000);
  assert_string_equal(XR_QUIESCE_BOUND_DEFAULT_TEXT, "100");
  assert_string_equal(XR_QUIESCE_BOUND_RANGE_TEXT, " (held to 10 .. 10000)");
  const int32_t in[] = {INT32_MIN, -1, 0, 1, 9, 10, 11, 100, 9999, 10000, 10001, 3600000,
                        INT32_MAX};
  const uint32_t want[] = {10, 10, 10, 10, 10, 10, 11, 100, 9999, 10000, 10000, 10000, 10000};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    assert_int_equal(xr_quiesce_bound_ms(in[i]), want[i]);
}

/* A config string that keeps the run in memory. */
static const char *quiet(const char *mode) {
  if (mode[5] == 'b') /* xray-basic: nothing recorded, no file */
    return "";
  return mode[5] == 'f' ? "no_file_flush=true" : "no_flush=true";
}

/* Runs `mode` once with `extra` appended to its config; returns the one
 * bound it waited with, in ms. */
static uint64_t bound_of(const char *mode, const char *extra) {
  char config[128];
  snprintf(config, sizeof config, "%s %s", quiet(mode), extra);
  waits = 0;
  waited_ns = 0;
  assert_int_equal(__xray_log_select_mode(mode), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode(mode, config), XRAY_LOG_INITIALIZED);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  assert_int_equal(waits, 1);
  assert_int_equal(waited_ns % 1000000u, 0);
  return waited_ns / 1000000u;
}

static const char *const modes[] = {"xray-basic", "xray-fdr", "xray-profiling"};

static void each_mode_asks_core(void **s) {
  (void)s;
  static const struct {
    const char *option;
    uint64_t ms;
  } cases[] = {
      {"", XR_QUIESCE_BOUND_DEFAULT_MS},
      {"grace_period_ms=0", XR_QUIESCE_BOUND_MIN_MS},
      {"grace_period_ms=9", XR_QUIESCE_BOUND_MIN_MS},
      {"grace_period_ms=10", 10},
      {"grace_period_ms=11", 11},
      {"grace_period_ms=250", 250},
      {"grace_period_ms=10000", XR_QUIESCE_BOUND_MAX_MS},
      {"grace_period_ms=10001", XR_QUIESCE_BOUND_MAX_MS},
      {"grace_period_ms=60000", XR_QUIESCE_BOUND_MAX_MS}, /* profiling's largest */
  };
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      uint64_t got = bound_of(modes[m], cases[i].option);
      if (got != cases[i].ms)
        fail_msg("%s with '%s': waited %llu ms, want %llu", modes[m], cases[i].option,
                 (unsigned long long)got, (unsigned long long)cases[i].ms);
    }
  /* the widest values each table accepts */
  assert_int_equal(bound_of("xray-basic", "grace_period_ms=3600000"), XR_QUIESCE_BOUND_MAX_MS);
  assert_int_equal(bound_of("xray-fdr", "grace_period_ms=3600000"), XR_QUIESCE_BOUND_MAX_MS);
}

/* FDR without XRAY_FDR_OPTIONS takes xray_fdr_log_grace_period_ms, under
 * the same rule; its config string still wins. */
static void fdr_legacy_flag(void **s) {
  (void)s;
  int32_t was = xr_flags.xray_fdr_log_grace_period_ms;
  assert_int_equal(was, XR_QUIESCE_BOUND_DEFAULT_MS);
  xr_flags.xray_fdr_log_grace_period_ms = 7;
  assert_int_equal(bound_of("xray-fdr", ""), XR_QUIESCE_BOUND_MIN_MS);
  xr_flags.xray_fdr_log_grace_period_ms = 2500;
  assert_int_equal(bound_of("xray-fdr", ""), 2500);
  xr_flags.xray_fdr_log_grace_period_ms = INT32_MAX;
  assert_int_equal(bound_of("xray-fdr", ""), XR_QUIESCE_BOUND_MAX_MS);
  assert_int_equal(bound_of("xray-fdr", "grace_period_ms=40"), 40);
  xr_flags.xray_fdr_log_grace_period_ms = was;
}

int main(void) {
  unsetenv("XRAY_BASIC_OPTIONS");
  unsetenv("XRAY_FDR_OPTIONS");
  unsetenv("XRAY_PROFILING_OPTIONS");
  unsetenv("XRAY_OPTIONS");
  xr_flags_load(); /* the defaults of XRAY_OPTIONS, as init loads them */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(core_rule),
      cmocka_unit_test(each_mode_asks_core),
      cmocka_unit_test(fdr_legacy_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
