/* One hot function: hot() called CALLS times from main, in FDR mode
 * started from code with CONFIG. Usage: hot CALLS CONFIG */
#include <stdio.h>
#include <stdlib.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NEVER __attribute__((xray_never_instrument))

static volatile unsigned sink;
__attribute__((noinline)) void hot(int i) { sink += (unsigned)i; }

NEVER int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: hot CALLS CONFIG\n");
    return 2;
  }
  int calls = atoi(argv[1]);
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode("xray-fdr", argv[2]) != XRAY_LOG_INITIALIZED ||
      __xray_patch() != SUCCESS) {
    fprintf(stderr, "hot: cannot start FDR\n");
    return 2;
  }
  for (int i = 0; i < calls; i++)
    hot(i);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRAY_LOG_FLUSHED) {
    fprintf(stderr, "hot: cannot flush\n");
    return 2;
  }
  return 0;
}
