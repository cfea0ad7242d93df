// Frames of a shared object left by an exception: the untraced catch_each()
// calls so_mid() of object_thrower.cc, whose so_thrower() throws, 100
// times; then the program's traced later() runs 10 times.
#define EXC_NO_THROWER
#include "exc_prog.h"

extern "C" void so_mid(int i);

UNTRACED int main() {
  finish_main("caught", catch_each(so_mid));
  return 0;
}
