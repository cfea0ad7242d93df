// An exit without its entry: started with only later() patched, g() patches
// itself and thrower() while it runs (__xray_patch_matching), calls
// thrower(), which throws into g's catch, and returns: g's exit comes with
// no entry, and thrower's call is still open below it. Then later() runs
// 10 times from main.
#include <cstdio>
#include <stdexcept>

#include "xray/xray_names.h"

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

static volatile int sink;

TRACED void thrower(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know thrower never returns */
    throw std::runtime_error("thrower");
}
TRACED void later(int i) { sink = i; }
TRACED int g() {
  int patched = static_cast<int>(__xray_patch_matching("g;thrower"));
  try {
    thrower(0);
  } catch (const std::exception &) {
    sink = sink + 1;
  }
  return patched;
}

UNTRACED int main() {
  int patched = g();
  for (int i = 0; i < 10; i++)
    later(i);
  printf("patched %d\n", patched);
  return 0;
}
