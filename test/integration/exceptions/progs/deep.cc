// The catch several frames up: thrower() throws through mid1() and mid2(),
// all traced, into the untraced catcher(), 100 times; then later() runs 10
// times. Nothing below mid2's frame exits in between.
#include <cstdio>
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

static volatile int sink;

TRACED void thrower(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know thrower never returns */
    throw std::runtime_error("thrower");
}
TRACED void mid1(int i) {
  thrower(i);
  sink = sink + 1; /* not reached: keeps the call from being a tail call */
}
TRACED void mid2(int i) {
  mid1(i);
  sink = sink + 1;
}
TRACED void later(int i) { sink = i; }

UNTRACED int catcher() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      mid2(i);
    } catch (const std::exception &) {
      caught++;
    }
  }
  return caught;
}

UNTRACED int main() {
  int caught = catcher();
  for (int i = 0; i < 10; i++)
    later(i);
  printf("caught %d\n", caught);
  return 0;
}
