/* Recording starts inside two calls: outer2() calls outer1(), which starts
 * FDR (trace_output from CONFIG) and patches; then leaf() runs in each.
 * The trace holds the exits of outer1 and outer2 but not their entries,
 * and its first event is leaf's entry. Usage: late_start CONFIG */
#include <stdio.h>
#include <stdlib.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))

static volatile int sink;
static const char *config;

NOINLINE void leaf(void) { sink++; }
NEVER NOINLINE static void start(void) {
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode("xray-fdr", config) != XRAY_LOG_INITIALIZED ||
      __xray_patch() != SUCCESS) {
    fprintf(stderr, "late_start: cannot start FDR\n");
    exit(2);
  }
}
NOINLINE void outer1(void) {
  start();
  leaf();
}
NOINLINE void outer2(void) {
  outer1();
  leaf();
}

NEVER int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  config = argv[1];
  outer2();
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 2;
  return 0;
}
