/* recurse(10) five times: ten nested calls each time. */
#include <stdio.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int recurse(int n) { return n <= 1 ? 1 : 1 + recurse(n - 1); }
__attribute__((xray_never_instrument)) int main(void) {
  int s = 0;
  volatile int ten = 10; /* five real calls: recurse() is pure */
  for (int i = 0; i < 5; i++)
    s += recurse(ten);
  printf("%d\n", s);
  return 0;
}
