// C++ exceptions skip exits like longjmp: thrower() throws through
// middle() to catcher(), which returns normally. Usage: exceptions CONFIG
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

static volatile int sink;
__attribute__((noinline)) void thrower(int i) { sink = i; throw std::runtime_error("x"); }
__attribute__((noinline)) void middle(int i) { thrower(i); sink++; }
__attribute__((noinline)) void catcher(int i) {
  try { middle(i); } catch (const std::exception &) { sink++; }
}
__attribute__((noinline)) void slow() {
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000);
}

[[clang::xray_never_instrument]] int main(int argc, char **argv) {
  for (int i = 0; i < 10; i++) catcher(i); // the first throw sets up the unwinder
  __xray_log_select_mode("xray-fdr");
  if (__xray_log_init_mode("xray-fdr", argv[1]) != XRAY_LOG_INITIALIZED) return 2;
  if (__xray_patch() != SUCCESS) return 2;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 200; i++) catcher(i);
    slow();
  }
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED) return 2;
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED) return 2;
  return 0;
}
