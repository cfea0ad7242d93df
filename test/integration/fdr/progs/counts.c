/* THREADS threads (0: the main thread alone) each call mid() CALLS times;
 * mid() calls leaf() twice. All threads start together (barrier) so they
 * write concurrently. Usage: counts CONFIG THREADS CALLS */
#include "fdr_test.h"
#include <pthread.h>

static pthread_barrier_t start;
static int calls;

NOINLINE int leaf(int x) { fdr_sink = x; return x + 1; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }

NEVER static void run(void) {
  for (int i = 0; i < calls; i++)
    fdr_sink = mid(i);
}

NEVER static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  run();
  return NULL;
}

int main(int argc, char **argv) {
  int threads = atoi(argv[2]);
  calls = atoi(argv[3]);
  fdr_start(fdr_config(argc, argv));
  if (threads == 0) {
    run();
  } else {
    pthread_t t[64];
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++)
      pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
      pthread_join(t[i], NULL);
  }
  fdr_stop();
  return 0;
}
