/* A traced workload that either runtime (ours, compiler-rt's) runs: THREADS
 * threads, each calling step() CALLS times; step() calls leaf() twice,
 * fib(4) (recursive: 9 calls) and logged(i) (its first argument logged).
 * With SERIAL, each thread starts when the one before has ended: the
 * records of compiler-rt's multi-threaded basic log then come in time order,
 * which llvm-xray account needs (docs/formats.md "What llvm-xray needs").
 * main is not traced; it selects and initialises MODE with CONFIG and
 * writes the log with the API both runtimes have.
 * Usage: workers MODE CONFIG THREADS CALLS SERIAL */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))

static volatile int sink;
static int calls;

NOINLINE void leaf(int i) { sink += i; }
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((xray_log_args(1))) NOINLINE void logged(int i) { sink ^= i; }
NOINLINE void step(int i) {
  leaf(i);
  leaf(i + 1);
  sink += fib(4);
  logged(i);
}
NOINLINE void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < calls; i++)
    step(i);
  return NULL;
}

NEVER int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: workers MODE CONFIG THREADS CALLS SERIAL\n");
    return 2;
  }
  int threads = atoi(argv[3]), serial = atoi(argv[5]);
  calls = atoi(argv[4]);
  if (__xray_log_select_mode(argv[1]) != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode(argv[1], argv[2]) != XRAY_LOG_INITIALIZED ||
      __xray_patch() != SUCCESS) {
    fprintf(stderr, "workers: cannot start %s\n", argv[1]);
    return 1;
  }
  pthread_t t[64];
  for (int k = 0; k < threads && k < 64; k++) {
    pthread_create(&t[k], NULL, worker, NULL);
    if (serial)
      pthread_join(t[k], NULL);
  }
  for (int k = 0; k < threads && k < 64 && !serial; k++)
    pthread_join(t[k], NULL);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRAY_LOG_FLUSHED) {
    fprintf(stderr, "workers: the log was not written\n");
    return 1;
  }
  return 0;
}
