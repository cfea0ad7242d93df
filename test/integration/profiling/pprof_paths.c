/* A deterministic call tree for the pprof output: plain calls, direct
 * recursion and mutual recursion, on the main thread and one more thread.
 *
 *   work: a x3 { b x2 { c }, c }, down(3) (4 levels), even(5) -> odd(4) ->
 *         even(3) -> odd(2) -> even(1) -> odd(0)
 */
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#include <pthread.h>

#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE void c(void) { sink++; }
NOINLINE void b(void) { c(); }
NOINLINE void a(void) { b(); b(); c(); }
NOINLINE int down(int n);
static int (*volatile down_ptr)(int) = down;
NOINLINE int down(int n) { return n == 0 ? 0 : down_ptr(n - 1) + 1; }
NOINLINE int odd(int n);
NOINLINE int even(int n) { return n == 0 ? 1 : odd(n - 1); }
NOINLINE int odd(int n) { return n == 0 ? 0 : even(n - 1); }
NOINLINE void *work(void *arg) {
  for (int i = 0; i < 3; i++)
    a();
  sink += down(3);
  sink += even(5);
  return arg;
}

int main(int argc, char **argv) {
  (void)argc;
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  work(0);
  pthread_t t;
  if (pthread_create(&t, 0, work, 0) != 0 || pthread_join(t, 0) != 0)
    return 3;
  __xray_log_finalize();
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}
