// A traced function that throws, caught by an untraced caller: nothing
// below the thrower's frame ever exits, so only the stack pointer of the
// next event says that its call is over. thrower() throws 100 times into
// catcher(), then later() runs 10 times from main.
// "snapshot" as argument: raise SIGUSR1 at the end (FDR's snapshot_signal).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))
#define UNTRACED extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))

static volatile int sink;

TRACED void thrower(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know thrower never returns */
    throw std::runtime_error("thrower");
}
TRACED void later(int i) { sink = i; }

UNTRACED int catcher() {
  int caught = 0;
  for (int i = 0; i < 100; i++) {
    try {
      thrower(i);
    } catch (const std::exception &) {
      caught++;
    }
  }
  return caught;
}

UNTRACED int main(int argc, char **argv) {
  int caught = catcher();
  for (int i = 0; i < 10; i++)
    later(i);
  printf("caught %d\n", caught);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "snapshot") == 0)
    raise(SIGUSR1);
  return 0;
}
