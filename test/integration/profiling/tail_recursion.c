/* Tail calls (built with -O2: caller ends in `jmp callee`) and recursion
 * through a volatile pointer (so no tail-recursion elimination). */
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE int callee(int x) { sink += x; return x * 7 + 1; }
NOINLINE int caller(int x) { return callee(x + 1); }
NOINLINE int leaf(int x) { sink += x; return x; }
/* arg-logging entry (sled kind 3): recorded as an ordinary entry; at -O2
 * it tail-calls leaf, which becomes its sibling */
__attribute__((xray_log_args(1))) NOINLINE int logged(int x) { return leaf(x); }
NOINLINE int rec(int n);
static int (*volatile rec_ptr)(int) = rec;
NOINLINE int rec(int n) {
  if (n == 0)
    return leaf(n);
  int r = rec_ptr(n - 1);
  sink += r;
  return r + 1;
}

int main(int argc, char **argv) {
  (void)argc;
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  /* main was entered before patching: the paths start below it */
  for (int i = 0; i < 5; i++)
    sink += caller(i);
  sink += rec(4);
  sink += rec(1);
  for (int i = 0; i < 3; i++)
    sink += logged(i);
  __xray_log_finalize();
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}
