/* dso_bench.sh's program: per-call cost of an instrumented function in the
 * executable (exe_fn) and of the same function in a shared object (dso_fn),
 * both patched, each call an entry and an exit event.
 *   bench_dso noop|mode|unpatched both|exe|dso CALLS
 * "both": exe_fn and dso_fn alternate in one process (timing); exe or dso:
 * timed_loop runs CALLS calls of that one more (callgrind counts it).
 * noop: a user no-op handler (full path); mode: whatever XRAY_OPTIONS
 * selected (FDR in the script); none: patched, no handler; unpatched:
 * sleds left as nops. Prints
 * "ns_per_call exe <ns> dso <ns>", each the fastest of 20 rounds; with exe
 * or dso, counted_loop then makes CALLS more calls of that one, which is
 * what callgrind counts (--toggle-collect=counted_loop). */
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
NI int counted_loop(int (*fn)(int), long calls) {
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
  long calls = atol(argv[3]);
  /* exe and dso alternate in 20 rounds of calls/20; each keeps its fastest
   * round: a load spike on this shared machine hits one round, not a side. */
  double best[2] = {1e30, 1e30};
  int (*const fns[2])(int) = {exe_fn, dso_fn};
  int r = timed_loop(exe_fn, calls / 20) + timed_loop(dso_fn, calls / 20); /* warm up */
  for (int round = 0; round < 20; round++)
    for (int k = 0; k < 2; k++) {
      struct timespec a, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      r += timed_loop(fns[k], calls / 20);
      clock_gettime(CLOCK_MONOTONIC, &b);
      double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
                  (double)(calls / 20);
      best[k] = ns < best[k] ? ns : best[k];
    }
  int (*fn)(int) = strcmp(argv[2], "dso") == 0 ? dso_fn : exe_fn;
  if (strcmp(argv[2], "both") != 0) /* callgrind: one side only */
    r += counted_loop(fn, calls);
  printf("ns_per_call exe %.2f dso %.2f (%d)\n", best[0], best[1], r & 1);
  return 0;
}
