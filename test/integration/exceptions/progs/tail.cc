// Tail exits (built with -O2). tail_caller() ends in a tail call of
// thrower(): its own call ends at its tail exit, and thrower's frame takes
// its place and is left by the throw into the untraced catch_each(), 100
// times. tail_catcher() catches a throw of thrower() itself, then
// tail-calls finish(): its tail exit finds thrower's frame below its own
// stack pointer, 100 times. Then later() runs 10 times.
#define EXC_NO_THROWER /* this one returns a value, for the tail call */
#include "exc_prog.h"

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

UNTRACED void call_tail_caller(int i) { sink = tail_caller(i); }

UNTRACED int main() {
  int caught = catch_each(call_tail_caller);
  for (int i = 0; i < 100; i++)
    tail_catcher(i);
  finish_main("caught", caught);
  return 0;
}
