// A traced function that throws, caught by an untraced caller: nothing
// below the thrower's frame ever exits, so only the stack pointer of the
// next event says that its call is over. thrower() throws 100 times into
// catch_each() (exc_prog.h), then later() runs 10 times.
// "snapshot" as argument: raise SIGUSR1 at the end (FDR's snapshot_signal).
#include <csignal>
#include <cstring>

#include "exc_prog.h"

UNTRACED int main(int argc, char **argv) {
  finish_main("caught", catch_each(thrower));
  if (argc > 1 && strcmp(argv[1], "snapshot") == 0)
    raise(SIGUSR1);
  return 0;
}
