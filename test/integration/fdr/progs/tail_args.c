/* Tail calls, logged arguments, and the erasure of short calls.
 * tail_a() tail-calls tail_b(), which tail-calls leaf(); with_arg() logs its
 * first argument; slow() spins for 300 ms and calls all of them.
 * Usage: tail_args CONFIG ROUNDS */
#include "fdr_test.h"
#include <time.h>

NOINLINE int leaf(int x) { fdr_sink = x; return x * 3; }
NOINLINE int tail_b(int x) { return leaf(x + 1); }
NOINLINE int tail_a(int x) { return tail_b(x + 1); }
__attribute__((xray_always_instrument, xray_log_args(1))) NOINLINE int
with_arg(long x) { fdr_sink = (int)x; return (int)x + 1; }

NOINLINE void slow(int rounds) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < rounds; i++)
    fdr_sink = tail_a(i) + with_arg(100 + i);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000);
}

int main(int argc, char **argv) {
  fdr_sink = tail_a(0) + with_arg(0); /* warm up before tracing */
  fdr_start(fdr_config(argc, argv));
  slow(atoi(argv[2]));
  fdr_stop();
  return 0;
}
