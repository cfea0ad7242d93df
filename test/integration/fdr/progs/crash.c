/* Crashes inside an instrumented function after some work. Usage:
 * crash CONFIG MODE, MODE one of
 *   null      crash_null() writes through a NULL pointer (SIGSEGV)
 *   abort     crash_abort() calls abort() (SIGABRT)
 *   overflow  recurse() recurses until the stack overflows (SIGSEGV)
 *   own       the program's own SIGSEGV handler, installed before FDR
 *             starts, prints a line and exits 42; then as null
 *   threaded  as null while another thread keeps calling work() */
#include "fdr_test.h"
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }
NOINLINE void crash_null(volatile int *p) { *p = 1; }
NOINLINE void crash_abort(void) { abort(); }
NOINLINE int recurse(int n) {
  volatile char pad[256];
  pad[0] = (char)n;
  return recurse(n + 1) + pad[0];
}

NEVER static void own_handler(int signo) {
  static const char line[] = "own handler ran\n";
  (void)signo;
  write(1, line, sizeof line - 1);
  _exit(42);
}

static volatile int *volatile null_pointer; /* the compiler cannot know */
static volatile int spinning;
NEVER static void *spinner(void *arg) {
  (void)arg;
  for (int i = 0;; i++) {
    work(i);
    spinning = 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argv[2];
  if (strcmp(mode, "own") == 0)
    signal(SIGSEGV, own_handler);
  fdr_start(argv[1]);
  for (int i = 0; i < 10; i++)
    work(i);
  if (strcmp(mode, "threaded") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    while (!spinning) {
    }
  }
  if (strcmp(mode, "abort") == 0)
    crash_abort();
  else if (strcmp(mode, "overflow") == 0)
    recurse(0);
  else
    crash_null(null_pointer);
  return 0;
}
