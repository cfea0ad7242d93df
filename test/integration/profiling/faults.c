/* Hostile situations for the profiler; each mode must end without a crash
 * and with a valid profile:
 *   fork     the child profiles on and writes its own file at exit
 *   signal   an instrumented signal handler runs inside a profiled call,
 *            then a storm of timer signals during 200 000 calls
 *   thread   a thread exits (pthread_exit) from inside a call
 *   running  exit while a thread is blocked inside a call
 *   wide     many distinct paths against a small global_allocator_max
 *   init     just init with the given config; exit code 10 if refused
 *   spinning exit while two threads are calling instrumented code
 *   states   the state machine's statuses, and a second session */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))
static volatile unsigned sink; /* unsigned: it wraps, and UBSan aborts on signed overflow */
NOINLINE void g(int i) { sink += i; }
NOINLINE void on_signal(int s) { g(s); }
NOINLINE void on_alarm(int s) { g(s); }
NOINLINE void f(int i) {
  if (i < 0)
    raise(SIGUSR1);
  sink += i;
}
NOINLINE void a(void) { g(1); }
NOINLINE void c(void) { g(2); }
NOINLINE void d(void) { g(3); }
NOINLINE void leave_thread(void) { pthread_exit(NULL); }
NOINLINE void *runner(void *arg) {
  (void)arg;
  g(4);
  leave_thread();
  return NULL;
}
static sem_t ready;
static int never[2];
NOINLINE void blocker(void) {
  char ch;
  sem_post(&ready);
  while (read(never[0], &ch, 1) != 0) {
  }
}
NOINLINE void *block_runner(void *arg) {
  (void)arg;
  blocker();
  return NULL;
}
static int started;
NOINLINE void *spinner(void *arg) {
  (void)arg;
  for (int i = 0;; i++) {
    f(i);
    if (i == 0)
      __atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
  }
  return NULL;
}
static int buffers;
static void count_buffer(const char *mode, XRayBuffer b) {
  (void)mode;
  (void)b;
  buffers++;
}
static int states(const char *config) {
  int bad = 0, n = 0;
#define EXPECT(call, want) bad |= ((call) != (want)) << n++
  EXPECT(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING); /* initialised, not finalized */
  EXPECT(__xray_log_init_mode("xray-profiling", config), XRAY_LOG_INITIALIZED);
  a();
  EXPECT(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  EXPECT(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  EXPECT(__xray_log_init_mode("xray-profiling", config), XRAY_LOG_FINALIZED);
  EXPECT(__xray_log_process_buffers(count_buffer), XRAY_LOG_FLUSHED);
  EXPECT(buffers, 2); /* header + main thread's block */
  EXPECT(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  EXPECT(__xray_log_flushLog(), XRAY_LOG_NOT_FLUSHING);
  EXPECT(__xray_log_finalize(), XRAY_LOG_UNINITIALIZED);
  buffers = 0;
  __xray_log_process_buffers(count_buffer);
  EXPECT(buffers, 0);
  /* a second session starts empty */
  EXPECT(__xray_log_init_mode("xray-profiling", config), XRAY_LOG_INITIALIZED);
  c();
  c();
  EXPECT(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  EXPECT(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  return bad;
}

/* distinct paths: wide_<k> called from several parents */
#define W(k) NOINLINE void wide_##k(int n) { if (n > 0) { g(n); wide_##k(n - 1); } }
W(0) W(1) W(2) W(3) W(4) W(5) W(6) W(7)

int main(int argc, char **argv) {
  const char *mode = argv[1];
  const char *config = argc > 2 ? argv[2] : "";
  if (__xray_log_init_mode("xray-profiling", config) != XRAY_LOG_INITIALIZED)
    return 10;
  __xray_patch();
  if (strcmp(mode, "fork") == 0) {
    a();
    pid_t pid = fork();
    if (pid == 0) {
      c();
      exit(0); /* the child's profile is written at exit */
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return 11;
    d();
  } else if (strcmp(mode, "signal") == 0) {
    signal(SIGUSR1, on_signal);
    f(-1);
    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 200000; i++)
      f(i);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
  } else if (strcmp(mode, "thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, runner, NULL);
    pthread_join(t, NULL);
  } else if (strcmp(mode, "running") == 0) {
    sem_init(&ready, 0, 0);
    if (pipe(never) != 0)
      return 12;
    pthread_t t;
    pthread_create(&t, NULL, block_runner, NULL);
    sem_wait(&ready);
    return 0; /* exit with the thread inside blocker() */
  } else if (strcmp(mode, "wide") == 0) {
    for (int r = 0; r < 3; r++) {
      wide_0(50); wide_1(50); wide_2(50); wide_3(50);
      wide_4(50); wide_5(50); wide_6(50); wide_7(50);
    }
  } else if (strcmp(mode, "spinning") == 0) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, spinner, NULL);
    while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 2)
      sched_yield();
    return 0; /* exit while both threads run instrumented calls */
  } else if (strcmp(mode, "states") == 0) {
    __xray_log_finalize();
    __xray_log_flushLog(); /* the first session (from main) ends */
    return states(config);
  } else if (strcmp(mode, "init") == 0) {
    a();
    return 0;
  }
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    return 13;
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 14;
}
