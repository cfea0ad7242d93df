/* Ten short calls, under any mode. */
#include <stdio.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int tiny(int x) { return x + 1; }
__attribute__((xray_never_instrument)) int main(void) {
  volatile int s = 0;
  for (int i = 0; i < 10; i++)
    s += tiny(i);
  puts("done");
  return 0;
}
