/* Finalize + flush while 4 threads keep calling mid() -> leaf() x2: every
 * call made before the finalize is in the log (each thread waits for 2000
 * of its mid() calls before main finalizes), records stay whole, the log is
 * well nested per thread. Prints the statuses. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"
#define XI __attribute__((xray_always_instrument, noinline))
enum { THREADS = 4, BEFORE = 2000 };
static volatile int sink;
static int stop, progress[THREADS];
XI void leaf(int x) { sink = x; }
XI void mid(int x) {
  leaf(x);
  leaf(x + 1);
}
__attribute__((xray_never_instrument)) static void *worker(void *arg) {
  int i = (int)(long)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
    mid(i);
    if (__atomic_add_fetch(&progress[i], 1, __ATOMIC_RELEASE) > BEFORE)
      sched_yield(); /* let the others catch up; keeps the log small */
  }
  return NULL;
}
__attribute__((xray_never_instrument)) int main(void) {
  int init = __xray_log_init_mode("xray-basic", "func_duration_threshold_us=0");
  int patch = __xray_patch();
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++)
    while (__atomic_load_n(&progress[i], __ATOMIC_ACQUIRE) < BEFORE)
      sched_yield();
  int fin = __xray_log_finalize();
  int flush = __xray_log_flushLog();
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  printf("init=%d patch=%d finalize=%d flush=%d\n", init, patch, fin, flush);
  return 0;
}
