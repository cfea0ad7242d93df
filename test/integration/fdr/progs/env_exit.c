/* Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr): main calls mid() CALLS times while a second thread
 * keeps calling spin() and is still running when main returns. Nothing in
 * the program mentions XRay. Usage: env_exit CALLS */
#include <pthread.h>
#include <stdlib.h>

static volatile int sink;
__attribute__((noinline)) int leaf(int x) { sink = x; return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
__attribute__((noinline)) void spin(int x) { sink = x; }

static volatile int spinning;
static void *spinner(void *arg) {
  (void)arg;
  for (int i = 0;; i++) {
    spin(i);
    spinning = 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_create(&t, NULL, spinner, NULL);
  while (!spinning) {
  }
  int calls = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < calls; i++)
    sink = mid(i);
  return 0; /* the spinner is still running */
}
