/* A worker that enters park() and never returns (a job loop waiting on a
 * condition variable): at exit its buffer holds a preamble and one record.
 * Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr). main waits until the worker is parked, then calls
 * leaf() 100 times. Usage: parked [snapshot|fork]: snapshot also takes an
 * API snapshot after the calls (prints its name); fork does all of it in
 * a child (which parks a worker of its own) and exits with its status. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xray/xray_fdr.h>

#define NEVER __attribute__((xray_never_instrument))
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int parked_now;
static volatile int sink;

__attribute__((noinline, xray_always_instrument)) void park(void) {
  pthread_mutex_lock(&lock);
  parked_now = 1;
  pthread_cond_broadcast(&cond);
  for (;;)
    pthread_cond_wait(&cond, &lock);
}
__attribute__((noinline, xray_always_instrument)) void leaf(int x) { sink = x; }

NEVER static void *worker(void *arg) {
  park();
  return arg;
}

NEVER static int run(int snapshot) {
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0)
    return 1;
  pthread_mutex_lock(&lock);
  while (!parked_now)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 100; i++)
    leaf(i);
  if (snapshot) {
    char path[1024];
    if (__xray_fdr_snapshot(path, sizeof path) != XRAY_SNAPSHOT_OK)
      return 1;
    printf("%s\n", path);
  }
  return 0;
}

NEVER int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "fork") == 0) {
    pid_t child = fork();
    if (child == 0)
      return run(0); /* exit flushes the child's own log */
    int status;
    return waitpid(child, &status, 0) == child && WIFEXITED(status)
               ? WEXITSTATUS(status)
               : 1;
  }
  return run(strcmp(mode, "snapshot") == 0);
}
