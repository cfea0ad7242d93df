/* Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr): main calls the short leaf() CALLS times, then a
 * second thread calls logged(7), whose argument is logged (an entry with an
 * argument is never erased). Usage: kept_thread CALLS */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;
__attribute__((noinline)) void leaf(int x) { sink = (uint64_t)x; }
__attribute__((noinline, xray_always_instrument, xray_log_args(1))) void
logged(uint64_t x) {
  sink = x;
}

__attribute__((xray_never_instrument)) static void *worker(void *arg) {
  (void)arg;
  logged(7);
  return NULL;
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < calls; i++)
    leaf(i);
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
    return 1;
  return 0;
}
