// The catch several frames up: thrower() throws through mid1() and mid2(),
// all traced, into the untraced catch_each() (exc_prog.h), 100 times; then
// later() runs 10 times. Nothing below mid2's frame exits in between.
#include "exc_prog.h"

TRACED void mid1(int i) {
  thrower(i);
  sink = sink + 1; /* not reached: keeps the call from being a tail call */
}
TRACED void mid2(int i) {
  mid1(i);
  sink = sink + 1;
}

UNTRACED int main() {
  finish_main("caught", catch_each(mid2));
  return 0;
}
