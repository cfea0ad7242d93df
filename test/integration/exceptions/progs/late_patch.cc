// An exit without its entry: started with only outer() and later()
// patched, outer() calls g(), which patches itself and thrower() while it
// runs (__xray_patch_matching), calls thrower(), which throws into g's
// catch, and returns: g's exit comes with no entry, with thrower's call
// still open below it and outer's above it. Then outer() returns, and
// later() runs 10 times from main.
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
TRACED int outer() {
  int patched = g();
  sink = patched; /* after the call: not a tail call */
  return patched;
}

UNTRACED int main() {
  int patched = outer();
  for (int i = 0; i < 10; i++)
    later(i);
  printf("patched %d\n", patched);
  return 0;
}
