/* sleepy() takes at least 100 ms (nanosleep never returns early) three
 * times; tiny() is called 100 times. */
#include <stdio.h>
#include <time.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int tiny(int x) { return x ^ 1; }
XI void sleepy(void) {
  struct timespec ts = {0, 100000000};
  nanosleep(&ts, NULL);
}
__attribute__((xray_never_instrument)) int main(void) {
  volatile int s = 0;
  for (int i = 0; i < 100; i++)
    s += tiny(i);
  for (int i = 0; i < 3; i++)
    sleepy();
  printf("done\n");
  return 0;
}
