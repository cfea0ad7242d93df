// A rethrow: rethrower() (traced) catches what thrower() throws, calls
// note() in its handler and rethrows with `throw;`, caught by the untraced
// catcher(), 100 times; then later() runs 10 times. thrower's frame is
// gone when note() is entered (at or above its stack pointer); rethrower's
// when the next rethrower() is.
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
TRACED void note(int i) { sink = i; }
TRACED void rethrower(int i) {
  try {
    thrower(i);
  } catch (const std::exception &) {
    note(i);
    throw;
  }
}
TRACED void later(int i) { sink = i; }

UNTRACED int catcher() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      rethrower(i);
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
