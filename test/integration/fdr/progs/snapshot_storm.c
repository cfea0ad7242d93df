/* Snapshots under fire: a thread sends SIGUSR2 (snapshot_signal) to the
 * process every 20 ms while the main thread runs 4 cycles of init, threads
 * that start, work and exit, a fork whose child takes its own snapshot,
 * snapshots from code racing the signals, finalize and flush. The program
 * handles SIGUSR2 itself (before FDR), so a signal between two cycles is
 * harmless. Prints how many signals its handler saw and how many API
 * snapshots returned each status. Usage: snapshot_storm CONFIG */
#include "fdr_test.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xray/xray_fdr.h>

static volatile sig_atomic_t seen;
static int done;
static int statuses[4];

NOINLINE int leaf(int x) { fdr_sink = x; return x + 1; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }

NEVER static void on_usr2(int signo) { (void)signo; seen++; }

NEVER static void *signaller(void *arg) {
  (void)arg;
  struct timespec pause = {0, 20000000};
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    kill(getpid(), SIGUSR2);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

NEVER static void *worker(void *arg) {
  for (int i = 0; i < 20000; i++)
    mid(i + (int)(long)arg);
  return NULL;
}

int main(int argc, char **argv) {
  signal(SIGUSR2, on_usr2);
  pthread_t sig;
  pthread_create(&sig, NULL, signaller, NULL);
  for (int cycle = 0; cycle < 4; cycle++) {
    fdr_start(fdr_config(argc, argv));
    for (int round = 0; round < 3; round++) {
      pthread_t t[4];
      for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
      statuses[__xray_fdr_snapshot(NULL, 0)]++;
      for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    }
    pid_t child = fork();
    if (child == 0) {
      for (int i = 0; i < 1000; i++)
        mid(i);
      _exit(__xray_fdr_snapshot(NULL, 0) == XRAY_SNAPSHOT_OK ? 0 : 3);
    }
    int st = 0;
    while (waitpid(child, &st, 0) < 0) {
    }
    fdr_expect("child", WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st), 0);
    fdr_stop();
    __xray_unpatch();
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(sig, NULL);
  printf("signals %d api ok %d failed %d\n", seen > 0, statuses[0] > 0,
         statuses[1] + statuses[3]);
  return 0;
}
