/* Shared by the FDR test programs: start and stop the mode, checking every
 * status (exit 2 on a wrong one, so a test cannot pass on a broken run). */
#ifndef FDR_TEST_H
#define FDR_TEST_H
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
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
/* Waits until `count` snapshots `<prefix>*.snapNNNNNN` have their .json
 * (written by the runtime's helper thread while this program runs):
 * polls, at most 60 s, then exit 3. Hard-links each to
 * `<name>.before_flush`, for the script to read what was there before any
 * flush and to see whether flush replaced it. */
NEVER static void fdr_wait_snapshot_json(const char *prefix, int count) {
  char pattern[256];
  snprintf(pattern, sizeof pattern,
           "%s*.snap[0-9][0-9][0-9][0-9][0-9][0-9].json", prefix);
  for (int i = 0;; i++) {
    glob_t g;
    int found = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
      found = (int)g.gl_pathc;
      for (size_t k = 0; found >= count && k < g.gl_pathc; k++) {
        char kept[600];
        snprintf(kept, sizeof kept, "%s.before_flush", g.gl_pathv[k]);
        if (access(kept, F_OK) != 0)
          fdr_expect("link the .json", link(g.gl_pathv[k], kept), 0);
      }
      globfree(&g);
    }
    if (found >= count)
      return;
    if (i == 6000) {
      fprintf(stderr, "%d snapshot .json file(s) after 60 s, want %d\n",
              found, count);
      exit(3);
    }
    usleep(10000);
  }
}
#endif
