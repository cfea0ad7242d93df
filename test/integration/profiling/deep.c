/* 10 000-deep recursion: recorded up to max_depth, the rest counted. */
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE int down(int n);
static int (*volatile down_ptr)(int) = down;
NOINLINE int down(int n) {
  if (n == 0)
    return 0;
  int r = down_ptr(n - 1);
  sink += r;
  return r + 1;
}

int main(int argc, char **argv) {
  (void)argc;
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  int r = down(9999); /* 10 000 frames of down */
  __xray_log_finalize();
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 6;
  return r == 9999 ? 0 : 7;
}
