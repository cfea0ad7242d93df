/* Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr): main (not instrumented) calls the short leaf() CALLS
 * times; with "slow" it also calls slow(), which waits 300 ms on the clock. Usage:
 * all_short CALLS [slow] */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int sink;
__attribute__((noinline)) void leaf(int x) { sink = x; }
__attribute__((noinline)) void slow(void) {
  struct timespec end; /* an absolute time: no signal cuts the wait short */
  clock_gettime(CLOCK_MONOTONIC, &end);
  end.tv_nsec += 300000000L;
  if (end.tv_nsec >= 1000000000L) {
    end.tv_sec++;
    end.tv_nsec -= 1000000000L;
  }
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) != 0) {
  }
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < calls; i++)
    leaf(i);
  if (argc > 2 && strcmp(argv[2], "slow") == 0)
    slow();
  return 0;
}
