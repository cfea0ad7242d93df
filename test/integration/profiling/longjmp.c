/* A loop that leaves two instrumented frames with longjmp each time, then
 * calls normally: the trie must not grow one level per iteration, and the
 * skipped frames still count their calls. */
#include <setjmp.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static jmp_buf env;
static volatile int sink;
NOINLINE void fail_deep(int i) {
  sink += i;
  longjmp(env, 1);
}
NOINLINE void attempt(int i) {
  fail_deep(i);
  sink += 1; /* not reached */
}
NOINLINE void after(void) { sink += 2; }

int main(int argc, char **argv) {
  (void)argc;
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  for (volatile int i = 0; i < 100; i++)
    if (setjmp(env) == 0)
      attempt(i);
  after();
  after();
  __xray_log_finalize();
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}
