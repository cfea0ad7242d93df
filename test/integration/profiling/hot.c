/* One function takes nearly all the time: the report must put it first. */
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static volatile unsigned long sink;
NOINLINE void light(int i) { sink += (unsigned long)i; }
NOINLINE void spin(unsigned long n) {
  for (unsigned long i = 0; i < n; i++)
    sink += i;
}
NOINLINE void outer(void) {
  for (int i = 0; i < 100; i++)
    light(i);
  spin(20000000);
}

int main(int argc, char **argv) {
  (void)argc;
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  outer();
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    return 4;
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}
