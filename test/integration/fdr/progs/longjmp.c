/* longjmp skips exits: outer() sets a jump point and calls inner(), which
 * jumps back; outer() then returns normally. At a threshold, the rewind
 * state unwinds to outer's entry, so each short outer/inner pair leaves no
 * records, and recording goes on normally afterwards. slow() spins 300 ms. Usage: longjmp CONFIG */
#include "fdr_test.h"
#include <setjmp.h>
#include <time.h>

static jmp_buf jump;
NOINLINE void inner(int i) { fdr_sink = i; longjmp(jump, 1); }
NOINLINE void outer(int i) {
  if (!setjmp(jump))
    inner(i);
  fdr_sink++;
}
NOINLINE void quick(void) { fdr_sink++; }
NOINLINE void slow(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000);
}

int main(int argc, char **argv) {
  for (int i = 0; i < 10; i++) /* first calls pay for lazy binding etc. */
    outer(i);
  fdr_start(fdr_config(argc, argv));
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 1000; i++)
      outer(i);
    for (int i = 0; i < 10; i++)
      quick();
    slow();
  }
  fdr_stop();
  return 0;
}
