/* test/bench/aarch64_insns.sh's program: calls an empty instrumented f()
 * N times (entry + exit = one call) in the SCENARIO chosen: unpatched;
 * none (patched, no handler); noop (a user handler doing nothing); or a
 * mode (xray-basic, xray-fdr, xray-profiling) selected, initialised with
 * CONFIG and patched through the log interface, then finalized and
 * flushed. Usage: aarch64_insns N SCENARIO [CONFIG] */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
__attribute__((noinline)) void f(void) { __asm__ volatile(""); }
__attribute__((xray_never_instrument)) static void noop(int32_t id, XRayEntryType t) { (void)id, (void)t; }
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const char *m = argv[2];
  int mode = strncmp(m, "xray-", 5) == 0;
  if (!strcmp(m, "noop"))
    __xray_set_handler(noop);
  if (mode) {
    __xray_log_select_mode(m);
    __xray_log_init_mode(m, argc > 3 ? argv[3] : "");
  }
  if (strcmp(m, "unpatched"))
    __xray_patch();
  for (int i = 0; i < n; i++)
    f();
  if (mode) {
    __xray_unpatch();
    __xray_log_finalize();
    __xray_log_flushLog();
  }
  return 0;
}
