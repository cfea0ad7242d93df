/* THREADS threads, one after the other, each calling work() CALLS times and
 * exiting in the middle of tracing: each gives its buffer back at exit, so a
 * queue of fewer buffers than threads serves them all; the flight recorder
 * keeps the most recent buffers. Usage: thread_exit CONFIG THREADS CALLS */
#include "fdr_test.h"
#include <pthread.h>

static int calls;
NOINLINE int work(int x) { fdr_sink = x; return x + 1; }
NEVER static void *worker(void *arg) {
  int id = (int)(long)arg;
  for (int i = 0; i < calls; i++)
    fdr_sink = work(id * 100000 + i);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = atoi(argv[2]);
  calls = atoi(argv[3]);
  fdr_start(fdr_config(argc, argv));
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)(long)i);
    pthread_join(t, NULL);
  }
  fdr_stop();
  return 0;
}
