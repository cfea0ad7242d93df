/* Crashes in a nested call after work in the executable and in a shared
 * object loaded once FDR records. Usage: crash_trace CONFIG MODE PLUGIN,
 * MODE one of
 *   nested    main: work() x10, plug_work() x5 (PLUGIN, dlopen'ed after FDR
 *             started), then outer() -> middle() -> crash_null(), which
 *             writes through a NULL pointer (SIGSEGV)
 *   threaded  the same calls on a second thread named "crasher", which
 *             crashes while the main thread keeps calling work()
 *   long      as nested, with work() x3000 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "fdr_test.h"
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }
NOINLINE void crash_null(volatile int *p) { *p = 1; }
NOINLINE void middle(volatile int *p) { crash_null(p); fdr_sink++; }
NOINLINE void outer(volatile int *p) { middle(p); fdr_sink++; }

static volatile int *volatile null_pointer; /* the compiler cannot know */
static int (*plug_work)(int);
static volatile int spinning;
static int works = 10;

NEVER static void calls_then_crash(void) {
  for (int i = 0; i < works; i++)
    work(i);
  for (int i = 0; i < 5; i++)
    fdr_sink = plug_work(i);
  outer(null_pointer);
}

NEVER static void *crasher(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "crasher");
  while (!spinning) {
  }
  calls_then_crash();
  return NULL;
}

NEVER int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  fdr_start(argv[1]);
  void *h = dlopen(argv[3], RTLD_NOW);
  plug_work = h ? (int (*)(int))dlsym(h, "plug_work") : NULL;
  if (plug_work == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  __xray_patch(); /* the plugin's sleds too */
  if (strcmp(argv[2], "long") == 0)
    works = 3000;
  if (strcmp(argv[2], "threaded") != 0) {
    calls_then_crash();
    return 0;
  }
  pthread_t t;
  pthread_create(&t, NULL, crasher, NULL);
  for (int i = 0;; i++) {
    work(i);
    spinning = 1;
  }
}
