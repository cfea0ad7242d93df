// A rethrow: rethrower() (traced) catches what thrower() throws, calls
// note() in its handler and rethrows with `throw;`, caught by the untraced
// catch_each() (exc_prog.h), 100 times; then later() runs 10 times.
// thrower's frame is gone when note() is entered (at or above its stack
// pointer); rethrower's when the next rethrower() is.
#include "exc_prog.h"

TRACED void note(int i) { sink = i; }
TRACED void rethrower(int i) {
  try {
    thrower(i);
  } catch (const std::exception &) {
    note(i);
    throw;
  }
}

UNTRACED int main() {
  finish_main("caught", catch_each(rethrower));
  return 0;
}
