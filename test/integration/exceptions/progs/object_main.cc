// Frames of a shared object left by an exception: the untraced catcher()
// calls so_mid() of object_thrower.cc, whose so_thrower() throws, 100
// times; then the program's traced later() runs 10 times.
#include <cstdio>
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

extern "C" void so_mid(int i);
static volatile int sink;

TRACED void later(int i) { sink = i; }

UNTRACED int catcher() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      so_mid(i);
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
