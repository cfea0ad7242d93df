/* Shared by the FDR test programs: start and stop the mode, checking every
 * status (exit 2 on a wrong one, so a test cannot pass on a broken run). */
#ifndef FDR_TEST_H
#define FDR_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))

static volatile int fdr_sink;

NEVER static void fdr_expect(const char *what, int got, int want) {
  if (got != want) {
    fprintf(stderr, "%s: got %d, want %d\n", what, got, want);
    exit(2);
  }
}

/* Selects and initialises FDR with cfg, then patches everything. */
NEVER static void fdr_start(const char *cfg) {
  fdr_expect("select", __xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  fdr_expect("init", __xray_log_init_mode("xray-fdr", cfg), XRAY_LOG_INITIALIZED);
  fdr_expect("patch", __xray_patch(), SUCCESS);
}

NEVER static void fdr_stop(void) {
  fdr_expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  fdr_expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
}

NEVER static const char *fdr_config(int argc, char **argv) {
  return argc > 1 ? argv[1] : "func_duration_threshold_us=0";
}
#endif
