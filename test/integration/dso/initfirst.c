/* initfirst.sh's program: calls a function of a shared object linked with
 * -z initfirst (initfirst_lib.c), whose constructor registers it with the
 * runtime before libc has set up `environ`. */
#include <stdio.h>

int lib_fn(int x);

__attribute__((noinline)) int exe_fn(int x) {
  __asm__ volatile("" : "+r"(x));
  return lib_fn(x) * 2;
}

int main(void) {
  int r = 0;
  for (int i = 0; i < 10; i++)
    r += exe_fn(i);
  printf("%d\n", r);
  return 0;
}
