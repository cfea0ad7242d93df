// Recursion: f(2) calls f(1) calls f(0), which throws; f(2) catches and
// returns normally. The exit of f(2) is an exit of f with f's frames
// above it: only the stack pointer tells f(2)'s frame from f(0)'s. Then
// the untraced deeper() calls probe() from a large frame, below any f's
// stack pointer. Driven 100 times by the untraced driver(), then later()
// runs 10 times.
#define EXC_NO_THROWER
#include "exc_prog.h"

TRACED int f(int n) {
  sink = n;
  if (sink == 0)
    throw std::runtime_error("f(0)");
  int r;
  if (n == 2) {
    try {
      r = f(n - 1);
    } catch (const std::exception &) {
      r = -1;
    }
  } else {
    r = f(n - 1);
  }
  sink = r; /* after the call: neither a tail call nor a loop */
  return r;
}
TRACED void probe(int i) { sink = i; }

UNTRACED void deeper(int i) {
  volatile char pad[4096];
  pad[i % sizeof pad] = 1;
  probe(pad[i % sizeof pad]);
}

UNTRACED int driver() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    caught += f(2) == -1;
    deeper(i);
  }
  return caught;
}

UNTRACED int main() {
  finish_main("caught", driver());
  return 0;
}
