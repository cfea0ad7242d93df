// C++ exceptions skip exit sleds: frames left by a throw are closed at the
// next entry at their stack depth, so counts and paths stay exact.
#include <stdexcept>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE void c(int i) {
  if (i >= 0)
    throw std::runtime_error("c");
  sink += i;
}
NOINLINE void b(int i) { c(i); sink += 1; }
NOINLINE void d(int i) { sink += i; }
NOINLINE void a(int i) {
  try {
    b(i); // throws from c, caught here: b and c never exit
  } catch (const std::exception &) {
    sink += 2;
  }
  d(i); // called from a's frame: b and c are closed first
}
NOINLINE void outer(int i) { a(i); throw 1; }

int main(int argc, char **argv) {
  (void)argc;
  __xray_log_select_mode("xray-profiling");
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  for (int i = 0; i < 100; i++) {
    try {
      outer(i); // the throw leaves outer (and nothing else) without its exit
    } catch (int) {
    }
  }
  __xray_log_finalize();
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}
