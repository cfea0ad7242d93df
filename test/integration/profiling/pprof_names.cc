// C++ names in the pprof profile: demangled name, mangled system_name.
#include "xray/xray_log_interface.h"

namespace ns {
__attribute__((noinline)) int f(int x) { return x + 1; }
} // namespace ns
__attribute__((noinline)) int g(double) { return ns::f(2); }

int main(int, char **argv) {
  if (__xray_log_init_mode("xray-profiling", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  int r = g(1.0);
  __xray_log_finalize();
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED && r == 3 ? 0 : 6;
}
