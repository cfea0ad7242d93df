/* sleepy() is called three times and lasts at least SLEEPY_MS milliseconds
 * (default 100) of CLOCK_MONOTONIC: it waits on the clock for an absolute
 * time, so no signal cuts it short; tiny() is called 100 times.
 * Usage: threshold [SLEEPY_MS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define XI __attribute__((xray_always_instrument, noinline))
static long sleepy_ms = 100;
XI int tiny(int x) { return x ^ 1; }
XI void sleepy(void) {
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  end.tv_sec += sleepy_ms / 1000;
  end.tv_nsec += sleepy_ms % 1000 * 1000000L;
  if (end.tv_nsec >= 1000000000L) {
    end.tv_sec++;
    end.tv_nsec -= 1000000000L;
  }
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) != 0) {
  }
}
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc > 1)
    sleepy_ms = atol(argv[1]);
  volatile int s = 0;
  for (int i = 0; i < 100; i++)
    s += tiny(i);
  for (int i = 0; i < 3; i++)
    sleepy();
  printf("done\n");
  return 0;
}
