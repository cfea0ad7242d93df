/* More threads than buffers. THREADS threads each make one call, wait for
 * all (so every buffer is held at once), then make CALLS more. With
 * buffer_max=THREADS-1 exactly one thread finds no buffer and all its
 * CALLS+1 events are dropped, never blocking. Usage: exhaust CONFIG THREADS CALLS */
#include "fdr_test.h"
#include <pthread.h>

static pthread_barrier_t all_started;
static int calls;

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }

NEVER static void *worker(void *arg) {
  (void)arg;
  fdr_sink = work(-1);
  pthread_barrier_wait(&all_started);
  for (int i = 0; i < calls; i++)
    fdr_sink = work(i);
  pthread_barrier_wait(&all_started); /* hold the buffers until all are done */
  return NULL;
}

int main(int argc, char **argv) {
  int threads = atoi(argv[2]);
  calls = atoi(argv[3]);
  fdr_start(fdr_config(argc, argv));
  pthread_t t[64];
  pthread_barrier_init(&all_started, NULL, (unsigned)threads);
  for (int i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  fdr_stop();
  return 0;
}
