/* dso_bench.sh's program: per-call cost of an instrumented function in the
 * executable (exe_fn) and of the same function in a shared object (dso_fn),
 * both patched, each call an entry and an exit event.
 *   bench_dso noop|mode exe|dso CALLS
 * noop: a user no-op handler (full path); mode: whatever XRAY_OPTIONS
 * selected (FDR in the script); unpatched: sleds left as nops. Prints "ns_per_call <value>". timed_loop is
 * what callgrind counts (--toggle-collect). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument, noinline))
int dso_fn(int x);
__attribute__((noinline)) int exe_fn(int x) {
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}

NI static void noop(int32_t id, XRayEntryType type) { (void)id, (void)type; }

NI int timed_loop(int (*fn)(int), long calls) {
  int acc = 0;
  for (long i = 0; i < calls; i++)
    acc = fn(acc);
  return acc;
}

NI int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  if (strcmp(argv[1], "noop") == 0)
    __xray_set_handler(noop);
  if (strcmp(argv[1], "unpatched") != 0 && __xray_patch() != SUCCESS)
    return 3;
  int (*fn)(int) = strcmp(argv[2], "dso") == 0 ? dso_fn : exe_fn;
  long calls = atol(argv[3]);
  timed_loop(fn, calls / 10); /* warm up */
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int r = timed_loop(fn, calls);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)calls;
  printf("ns_per_call %.2f (%d)\n", ns, r & 1);
  return 0;
}
