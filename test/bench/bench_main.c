/* The benchmark driver: one scenario per process, timed with CLOCK_MONOTONIC.
 *
 * Usage: bench SCENARIO CALLS
 * The same object is linked against our libxray.a and against compiler-rt's
 * archives, so both runtimes run exactly this code and the same workload
 * objects. Not instrumented itself. Output, one fact per line:
 *   M <metric> <value> <unit>   a measurement
 *   E <what> <count>            what the log file must contain (the harness
 *                               counts it with xray_count and compares)
 *   C ok | F <reason>           a check the program did itself
 * Every scenario first makes WARMUP calls (lazy per-thread set-up happens
 * there, outside the timed loop); they are part of the expected counts.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define WARMUP 1000L

int bench_leaf(int);
int bench_leaf_plain(int);
long bench_tree(long);

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int failures;
static void fail(const char *what) {
  printf("F %s\n", what);
  failures++;
}

/* The timed loops: named timed_* so callgrind can count just them
 * (--toggle-collect=timed_*). */
__attribute__((noinline)) long timed_leaf(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += bench_leaf((int)i);
  return s;
}
__attribute__((noinline)) long timed_plain(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += bench_leaf_plain((int)i);
  return s;
}
__attribute__((noinline)) long timed_tree(long n) { return bench_tree(n); }

/* The "no-op" user handler: one plain increment, so the run proves every
 * event reached it. */
static long handler_events;
static void counting_handler(int32_t id, XRayEntryType type) {
  (void)id;
  (void)type;
  handler_events++;
}

static void expect_calls(long calls_per_thread, int threads) {
  printf("E enter %ld\nE exit %ld\n", calls_per_thread * threads,
         calls_per_thread * threads);
}

/* The floor: the same function with and without sleds, never patched. The
 * two loops alternate in blocks so both see the same machine state. */
static void scenario_unpatched(long n) {
  if (!__xray_set_handler(counting_handler))
    fail("set_handler");
  long blocks = 8, per = n / blocks;
  double t_sled = 0, t_plain = 0;
  long s_sled = timed_leaf(WARMUP), s_plain = timed_plain(WARMUP);
  for (long b = 0; b < blocks; b++) {
    double t0 = now_ns();
    s_sled += timed_leaf(per);
    double t1 = now_ns();
    s_plain += timed_plain(per);
    double t2 = now_ns();
    t_sled += t1 - t0;
    t_plain += t2 - t1;
  }
  if (s_sled != s_plain)
    fail("instrumented and plain results differ");
  if (handler_events != 0)
    fail("handler called although nothing was patched");
  printf("M unpatched %.3f ns/call\n", t_sled / (double)(per * blocks));
  printf("M noxray %.3f ns/call\n", t_plain / (double)(per * blocks));
}

static void scenario_noop(long n) {
  if (__xray_patch() != SUCCESS)
    fail("patch");
  if (!__xray_set_handler(counting_handler))
    fail("set_handler");
  timed_leaf(WARMUP);
  double t0 = now_ns();
  timed_leaf(n);
  double t1 = now_ns();
  __xray_remove_handler();
  __xray_unpatch();
  if (handler_events != 2 * (n + WARMUP)) {
    char msg[96];
    snprintf(msg, sizeof msg, "handler saw %ld events, expected %ld",
             handler_events, 2 * (n + WARMUP));
    fail(msg);
  }
  printf("M noop %.3f ns/event\n", (t1 - t0) / (2.0 * (double)n));
}

/* Basic mode is initialised from the environment (XRAY_OPTIONS
 * xray_mode=xray-basic, XRAY_BASIC_OPTIONS), the one way in which
 * compiler-rt also writes the main thread's last buffer at exit. */
static void scenario_basic(long n) {
  if (__xray_patch() != SUCCESS)
    fail("patch");
  timed_leaf(WARMUP);
  double t0 = now_ns();
  timed_leaf(n);
  double t1 = now_ns();
  __xray_unpatch();
  expect_calls(n + WARMUP, 1);
  printf("M basic %.3f ns/event\n", (t1 - t0) / (2.0 * (double)n));
}

/* FDR is selected and initialised from code, as compiler-rt requires:
 * select, init_mode with a config, then patch. The buffers are sized to hold
 * every event, so nothing may be overwritten. */
static int fdr_start(long events) {
  char cfg[160];
  long bytes = events * 8 + (4L << 20);
  long buffer_size = 1L << 20;
  snprintf(cfg, sizeof cfg,
           "func_duration_threshold_us=0:buffer_size=%ld:buffer_max=%ld",
           buffer_size, bytes / buffer_size + 8);
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK) {
    fail("select xray-fdr");
    return 0;
  }
  if (__xray_log_init_mode("xray-fdr", cfg) != XRAY_LOG_INITIALIZED) {
    fail("init xray-fdr");
    return 0;
  }
  if (__xray_patch() != SUCCESS)
    fail("patch");
  return 1;
}

static void fdr_stop(void) {
  double t0 = now_ns();
  int fin = __xray_log_finalize();
  int fl = __xray_log_flushLog();
  double t1 = now_ns();
  __xray_unpatch();
  if (fin != XRAY_LOG_FINALIZED)
    fail("finalize");
  if (fl != XRAY_LOG_FLUSHED)
    fail("flush");
  printf("M fdr-flush %.3f ms\n", (t1 - t0) / 1e6);
}

static void scenario_fdr(long n) {
  if (!fdr_start(2 * (n + WARMUP)))
    return;
  timed_leaf(WARMUP);
  double t0 = now_ns();
  timed_leaf(n);
  double t1 = now_ns();
  fdr_stop();
  expect_calls(n + WARMUP, 1);
  printf("M fdr %.3f ns/event\n", (t1 - t0) / (2.0 * (double)n));
}

/* FDR with two threads: both start together at a barrier; the figure is
 * wall time over all events of both threads. */
static pthread_barrier_t start_line;
static long thread_calls;
__attribute__((noinline)) void *timed_thread(void *arg) {
  (void)arg;
  timed_leaf(WARMUP);
  pthread_barrier_wait(&start_line);
  timed_leaf(thread_calls);
  return NULL;
}

static void scenario_fdr_2t(long n) {
  if (!fdr_start(4 * (n + WARMUP)))
    return;
  pthread_t t[2];
  thread_calls = n;
  pthread_barrier_init(&start_line, NULL, 3);
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, timed_thread, NULL);
  pthread_barrier_wait(&start_line);
  double t0 = now_ns();
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  double t1 = now_ns();
  fdr_stop();
  expect_calls(n + WARMUP, 2);
  printf("M fdr-2t %.3f ns/event\n", (t1 - t0) / (4.0 * (double)n));
}

/* Profiling: a depth-5 call tree (bench_tree loops over a 4-deep chain);
 * the counts in the profile must add up to every call made. Each
 * bench_tree() call is a root (two: warm-up and timed). */
static void scenario_profiling(long n) {
  if (__xray_log_select_mode("xray-profiling") != XRAY_REGISTRATION_OK) {
    fail("select xray-profiling");
    return;
  }
  if (__xray_log_init_mode("xray-profiling", "no_flush=false") !=
      XRAY_LOG_INITIALIZED) {
    fail("init xray-profiling");
    return;
  }
  if (__xray_patch() != SUCCESS)
    fail("patch");
  timed_tree(WARMUP);
  double t0 = now_ns();
  timed_tree(n);
  double t1 = now_ns();
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    fail("finalize");
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    fail("flush");
  __xray_unpatch();
  printf("E calls %ld\n", 4 * (n + WARMUP) + 2);
  printf("M profiling %.3f ns/event\n", (t1 - t0) / (8.0 * (double)n));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SCENARIO CALLS\n", argv[0]);
    return 2;
  }
  const char *s = argv[1];
  long n = atol(argv[2]);
  if (n < 8) {
    fprintf(stderr, "CALLS must be >= 8\n");
    return 2;
  }
  if (!strcmp(s, "unpatched"))
    scenario_unpatched(n);
  else if (!strcmp(s, "noop"))
    scenario_noop(n);
  else if (!strcmp(s, "basic"))
    scenario_basic(n);
  else if (!strcmp(s, "fdr"))
    scenario_fdr(n);
  else if (!strcmp(s, "fdr-2t"))
    scenario_fdr_2t(n);
  else if (!strcmp(s, "profiling"))
    scenario_profiling(n);
  else {
    fprintf(stderr, "unknown scenario %s\n", s);
    return 2;
  }
  if (!failures)
    printf("C ok\n");
  fflush(stdout);
  return failures ? 1 : 0;
}
