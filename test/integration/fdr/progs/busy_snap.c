/* Snapshots of a busy program. Started from the environment (XRAY_OPTIONS
 * patch_premain=true xray_mode=xray-fdr, the snapshot options in
 * XRAY_FDR_OPTIONS). main alone first calls outer() (outer -> middle ->
 * inner) MAIN times: enough to fill the ring and wrap it many times. Then 8
 * workers call outer() WORKER times each; once every worker is halfway,
 * main raises SIGUSR2 (a signal snapshot, taken on main inside raise),
 * calls outer() 1000 times more, raises it again, and calls slow(), which
 * waits 300 ms (a slow-call snapshot): three snapshots while the workers
 * run. Usage: busy_snap MAIN WORKER */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#define NEVER __attribute__((xray_never_instrument))
#define FN __attribute__((noinline, xray_always_instrument))
enum { WORKERS = 8 };
static volatile int sink; /* volatile: the calls stay, every store kept */
static int halfway, worker_calls;

FN void inner(int x) { __atomic_store_n(&sink, x, __ATOMIC_RELAXED); } /* every worker stores */
FN void middle(int x) { inner(x + 1); }
FN void outer(int x) { middle(x + 1); }
FN void slow(void) {
  struct timespec t = {0, 300 * 1000 * 1000};
  while (nanosleep(&t, &t) != 0) {
  }
}

NEVER static void *worker(void *arg) {
  for (int i = 0; i < worker_calls; i++) {
    if (i == worker_calls / 2)
      __atomic_add_fetch(&halfway, 1, __ATOMIC_RELEASE);
    outer(i);
  }
  return arg;
}

NEVER int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 100000;
  worker_calls = argc > 2 ? atoi(argv[2]) : 250;
  for (int i = 0; i < calls; i++)
    outer(i);
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0)
      return 1;
  while (__atomic_load_n(&halfway, __ATOMIC_ACQUIRE) < WORKERS)
    sched_yield();
  raise(SIGUSR2);
  for (int i = 0; i < 1000; i++)
    outer(i);
  raise(SIGUSR2);
  slow();
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  return 0;
}
