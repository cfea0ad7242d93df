/* Starts FDR mode through the log interface when BUDGET_BENCH_FDR is set
 * (its value is the mode's option string) and finalizes and flushes it at
 * exit. test/bench/budget.sh links it into both Lua binaries with
 * -Wl,--wrap=main (so it runs after every constructor, whatever order the
 * runtime's own initializers have); only the compiler-rt side sets the
 * variable: compiler-rt's XRAY_OPTIONS=xray_mode=xray-fdr installs the mode's
 * handler but never initializes it, so its events would stop at "not
 * initialized" and no log would be written. Not instrumented.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <xray/xray_log_interface.h>

int __real_main(int argc, char **argv);

__attribute__((xray_never_instrument)) static void budget_fdr_stop(void) {
  __xray_log_finalize();
  __xray_log_flushLog();
}

__attribute__((xray_never_instrument)) int __wrap_main(int argc, char **argv) {
  const char *config = getenv("BUDGET_BENCH_FDR");
  if (config != NULL) {
    __xray_log_select_mode("xray-fdr");
    if (__xray_log_init_mode("xray-fdr", config) != XRAY_LOG_INITIALIZED) {
      fputs("budget_fdr_start: FDR mode did not initialize\n", stderr);
      return 3;
    }
    atexit(budget_fdr_stop);
  }
  return __real_main(argc, argv);
}
