/* tiny() is called 100 times and takes nanoseconds: every call is shorter
 * than the default threshold (5 us). */
#include <stdio.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int tiny(int x) { return x ^ 1; }
__attribute__((xray_never_instrument)) int main(void) {
  volatile int s = 0;
  for (int i = 0; i < 100; i++)
    s += tiny(i);
  printf("done\n");
  return 0;
}
