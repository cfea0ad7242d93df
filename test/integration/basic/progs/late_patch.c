/* Recording starts inside g() (it patches), so g's exit has no entry; the
 * log must not hold that exit (llvm-xray account rejects it). */
#include "xray/xray_interface.h"
#include <pthread.h>
#include <stdio.h>
#define XI __attribute__((xray_always_instrument, noinline))
static volatile int sink;
XI void leaf(int x) { sink = x; }
XI void g(void) {
  __xray_patch();
  leaf(1);
}
__attribute__((xray_never_instrument)) static void *w(void *a) {
  g();
  leaf(2);
  return a;
}
__attribute__((xray_never_instrument)) int main(void) {
  pthread_t t;
  pthread_create(&t, 0, w, 0);
  pthread_join(t, 0);
  puts("ok");
  return 0;
}
