/* Every built-in mode answers each bad configuration the same way: not
 * initialised (XRAY_LOG_UNINITIALIZED = 0), a message; a good one starts. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_log_interface.h>

static char longer[5000];

static void try(const char *mode, const char *what, const char *config) {
  printf("%s %s: %d\n", mode, what, (int)__xray_log_init_mode(mode, config));
}

int main(void) {
  /* valid words all along: cutting it anywhere between two still parses */
  for (size_t i = 0; i + 2 < sizeof longer; i += 2)
    memcpy(longer + i, "  ", 2);
  memcpy(longer, "func_duration_threshold_us=0", 28);
  const char *modes[] = {"xray-basic", "xray-fdr", "xray-profiling"};
  for (int m = 0; m < 3; m++) {
    const char *mode = modes[m];
    bool prof = m == 2;
    try(mode, "over-long", longer);
    try(mode, "bad output", prof ? "profiling_output=pdf" : "trace_output=pdf");
    try(mode, "bad value", prof ? "max_depth=abc" : "func_duration_threshold_us=abc");
    try(mode, "good", prof ? "no_flush=true" : "func_duration_threshold_us=0");
    printf("%s finalize: %d\n", mode, (int)__xray_log_finalize());
    printf("%s flush: %d\n", mode, (int)__xray_log_flushLog());
  }
  return 0;
}
