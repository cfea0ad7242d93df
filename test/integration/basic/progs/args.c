/* Logged arguments: add1 is xray_log_args(1). */
#include <stdio.h>
#define XA __attribute__((xray_always_instrument, xray_log_args(1), noinline))
XA long add1(long v) { return v + 1; }
__attribute__((xray_never_instrument)) int main(void) {
  long s = add1(100) + add1(-5) + add1(0x123456789abcdef0);
  printf("%ld\n", s);
  return 0;
}
