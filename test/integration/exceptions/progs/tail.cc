// Tail exits (built with -O2). tail_caller() ends in a tail call of
// thrower(): its own call ends at its tail exit, and thrower's frame takes
// its place and is left by the throw into the untraced catcher(), 100
// times. tail_catcher() catches a throw of thrower() itself, then
// tail-calls finish(): its tail exit finds thrower's frame below its own
// stack pointer, 100 times. Then later() runs 10 times.
#include <cstdio>
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

static volatile int sink;

TRACED int thrower(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know thrower never returns */
    throw std::runtime_error("thrower");
  return sink;
}
TRACED int finish(int i) { return sink + i; }
TRACED int tail_caller(int i) { return thrower(i + sink); }
TRACED int tail_catcher(int i) {
  try {
    sink = thrower(i);
  } catch (const std::exception &) {
    sink = sink + 1;
  }
  return finish(i);
}
TRACED void later(int i) { sink = i; }

UNTRACED int catcher() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      tail_caller(i);
    } catch (const std::exception &) {
      caught++;
    }
  }
  return caught;
}

UNTRACED int main() {
  int caught = catcher();
  for (int i = 0; i < 100; i++)
    tail_catcher(i);
  for (int i = 0; i < 10; i++)
    later(i);
  printf("caught %d\n", caught);
  return 0;
}
