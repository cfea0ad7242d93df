/* Programmatic start and flush from main, nothing lost: init with a config
 * string, patch, calls in main (7), in a joined thread (5) and in a thread
 * still alive at the flush (3); after the flush further calls are not
 * recorded and exit writes nothing more. Prints the statuses. */
#include <pthread.h>
#include <stdio.h>
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"
#define XI __attribute__((xray_always_instrument, noinline))
static volatile int sink; /* side effects, so no call is optimised away */
XI void in_main(int x) { sink = x + 1; }
XI void in_joined(int x) { sink = x + 2; }
XI void in_waiting(int x) { sink = x + 3; }

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage; /* 1: waiting thread recorded, 2: flushed */

__attribute__((xray_never_instrument)) static void set_stage(int s) {
  pthread_mutex_lock(&mu);
  stage = s;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}
__attribute__((xray_never_instrument)) static void wait_stage(int s) {
  pthread_mutex_lock(&mu);
  while (stage < s)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}
__attribute__((xray_never_instrument)) static void *joined(void *arg) {
  for (int i = 0; i < 5; i++)
    in_joined(i);
  return arg;
}
__attribute__((xray_never_instrument)) static void *waiting(void *arg) {
  for (int i = 0; i < 3; i++)
    in_waiting(i);
  set_stage(1);
  wait_stage(2);
  in_waiting(99); /* after the flush: not recorded */
  return arg;
}

__attribute__((xray_never_instrument)) int main(void) {
  int init = __xray_log_init_mode("xray-basic", "func_duration_threshold_us=0");
  int patch = __xray_patch();
  pthread_t a, b;
  pthread_create(&a, NULL, joined, NULL);
  pthread_join(a, NULL);
  pthread_create(&b, NULL, waiting, NULL);
  for (int i = 0; i < 7; i++)
    in_main(i);
  wait_stage(1);
  int fin = __xray_log_finalize();
  int flush = __xray_log_flushLog();
  in_main(100); /* not recorded */
  set_stage(2);
  pthread_join(b, NULL);
  int flush2 = __xray_log_flushLog();
  printf("init=%d patch=%d finalize=%d flush=%d again=%d\n", init, patch, fin,
         flush, flush2);
  return 0;
}
