/* Starts FDR from a program that already runs three threads: the mode's
 * init must not be where the process registers for membarrier (with threads
 * alive the kernel's registration waits for an RCU grace period). The
 * threads wait on a barrier, so all three exist when FDR starts. */
#include <pthread.h>
#include <stdio.h>
#include <xray/xray_log_interface.h>

static pthread_barrier_t started, done;

static void *waiter(void *arg) {
  (void)arg;
  pthread_barrier_wait(&started);
  pthread_barrier_wait(&done);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  pthread_barrier_init(&started, NULL, 4);
  pthread_barrier_init(&done, NULL, 4);
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, waiter, NULL);
  pthread_barrier_wait(&started);
  int selected = __xray_log_select_mode("xray-fdr");
  XRayLogInitStatus s = __xray_log_init_mode("xray-fdr", "");
  pthread_barrier_wait(&done);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  __xray_log_finalize();
  __xray_log_flushLog();
  printf("select %d init %d\n", selected, (int)s);
  return 0;
}
