/* A thread's very first instrumented call happens in a signal handler that
 * interrupted malloc, in a loop of threads. The tracer's first-event path
 * must not allocate (malloc's locks may be held by the interrupted code):
 * malloc, calloc, realloc and free are interposed and count the calls made
 * while the handler runs. Before main, a constructor creates 40 pthread keys,
 * as a library might, so a runtime that creates its thread-exit key late
 * gets one whose value needs an allocated block. The mode (argv[2]) is
 * started from code in main, with its config (argv[3]). Prints
 * "threads <n> allocations-in-handler <n>". */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOXRAY __attribute__((xray_never_instrument))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static __thread int in_signal_handler;
static int allocations_in_handler;

NOXRAY static void count(void) {
  if (in_signal_handler)
    __atomic_fetch_add(&allocations_in_handler, 1, __ATOMIC_RELAXED);
}
NOXRAY void *malloc(size_t n) { count(); return __libc_malloc(n); }
NOXRAY void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
NOXRAY void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
NOXRAY void free(void *p) { count(); __libc_free(p); }

__attribute__((constructor(101))) NOXRAY static void take_keys(void) {
  pthread_key_t k;
  for (int i = 0; i < 40; i++)
    if (pthread_key_create(&k, NULL) != 0)
      abort();
}

__attribute__((xray_always_instrument, noinline)) int first_call(int x) {
  return x + 1;
}

static volatile int handled;
NOXRAY static void on_usr1(int sig) {
  (void)sig;
  in_signal_handler = 1;
  handled = first_call(handled) > 0;
  in_signal_handler = 0;
}

static volatile int ready;
NOXRAY static void *churn(void *arg) {
  (void)arg;
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  while (!handled) {
    void *p = malloc(64 + (size_t)(rand() & 255)); /* mostly inside malloc */
    free(p);
  }
  return NULL;
}

NOXRAY int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 200;
  const char *mode = argc > 2 ? argv[2] : "xray-basic";
  const char *config = argc > 3 ? argv[3] : "";
  if (__xray_log_select_mode(mode) != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode(mode, config) != XRAY_LOG_INITIALIZED ||
      __xray_patch() != SUCCESS)
    return 3;
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  for (int i = 0; i < threads; i++) {
    handled = 0;
    ready = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, churn, NULL) != 0)
      return 2;
    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
      sched_yield();
    pthread_kill(t, SIGUSR1);
    pthread_join(t, NULL);
  }
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 4;
  printf("threads %d allocations-in-handler %d\n", threads, allocations_in_handler);
  return 0;
}
