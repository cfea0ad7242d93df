// What the exception test programs share: the markers that trace a
// function or keep it untraced whatever -fxray-instruction-threshold says,
// a traced thrower() that always throws (left out with EXC_NO_THROWER), a
// traced later(), the untraced loop that catches, and the end of main.
#ifndef EXC_PROG_H
#define EXC_PROG_H

#include <cstdio>
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

static volatile int sink;

#ifndef EXC_NO_THROWER
TRACED void thrower(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know thrower never returns */
    throw std::runtime_error("thrower");
}
#endif

TRACED void later(int i) { sink = i; }

// Calls f(0) .. f(99) from a frame no sled sees, catching what each
// throws; returns how many threw.
UNTRACED int catch_each(void (*f)(int)) {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      f(i);
    } catch (const std::exception &) {
      caught++;
    }
  }
  return caught;
}

// The end of main: later() 10 times, then the line the test reads. Inlined,
// so that later() is called from main's own frame, above every call the
// program left: a deeper caller would nest it in such a call instead
// (docs/modes.md, the limits).
[[clang::xray_never_instrument]] static inline __attribute__((always_inline)) void
finish_main(const char *what, int n) {
  for (int i = 0; i < 10; i++)
    later(i);
  printf("%s %d\n", what, n);
  fflush(stdout);
}

#endif
