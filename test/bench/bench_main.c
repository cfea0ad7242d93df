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
 * The timed calls run in BLOCKS equal blocks of about a millisecond and the
 * figure is the fastest block: on a shared machine a block that lost the CPU
 * says nothing about the runtime, and short blocks often run clean. (The
 * harness then takes the median over processes.)
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_driver.h"
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define WARMUP 1000L
#define BLOCKS 64
/* Profiling makes each block a new root call; compiler-rt's profiling mode
 * allocates a new root per top-level call and runs out of its per-thread
 * allocator after ~17 of them, so it gets fewer, longer blocks. */
#define PROFILING_BLOCKS 8

int bench_leaf(int);
int bench_leaf_plain(int);
long bench_tree(long);

/* The timed loops: named timed_* so callgrind can count just them
 * (--toggle-collect=timed_*). Aligned like the workload (bench_fn.c), so the
 * loops sit at the same cache-line offset in both links. */
#define TIMED __attribute__((noinline, aligned(64)))
TIMED long timed_leaf(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += bench_leaf((int)i);
  return s;
}
TIMED long timed_plain(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += bench_leaf_plain((int)i);
  return s;
}
TIMED long timed_tree(long n) { return bench_tree(n); }

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
  long per = n / BLOCKS;
  double best_sled = 1e300, best_plain = 1e300;
  long s_sled = timed_leaf(WARMUP), s_plain = timed_plain(WARMUP);
  for (int b = 0; b < BLOCKS; b++) {
    double t0 = now_ns();
    s_sled += timed_leaf(per);
    double t1 = now_ns();
    s_plain += timed_plain(per);
    double t2 = now_ns();
    if (t1 - t0 < best_sled)
      best_sled = t1 - t0;
    if (t2 - t1 < best_plain)
      best_plain = t2 - t1;
  }
  if (s_sled != s_plain)
    fail("instrumented and plain results differ");
  if (handler_events != 0)
    fail("handler called although nothing was patched");
  printf("M unpatched %.3f ns/call\n", best_sled / (double)per);
  printf("M noxray %.3f ns/call\n", best_plain / (double)per);
}

/* Ours only (weak: compiler-rt has no such flag): BENCH_NO_AVX512=1 makes
 * the next handler install take the full path of CPUs without AVX-512 (ymm),
 * so that both can be measured on an AVX-512 machine. */
extern uint8_t xr_vector_avx512 __attribute__((weak));
static void knob_no_avx512(void) {
  if (getenv("BENCH_NO_AVX512") && &xr_vector_avx512)
    xr_vector_avx512 = 0;
}

static void scenario_noop(long n) {
  knob_no_avx512();
  if (__xray_patch() != SUCCESS)
    fail("patch");
  if (!__xray_set_handler(counting_handler))
    fail("set_handler");
  timed_leaf(WARMUP);
  long calls;
  double ns = fastest_block(timed_leaf, n, BLOCKS, &calls);
  __xray_remove_handler();
  __xray_unpatch();
  if (handler_events != 2 * (calls + WARMUP)) {
    char msg[96];
    snprintf(msg, sizeof msg, "handler saw %ld events, expected %ld",
             handler_events, 2 * (calls + WARMUP));
    fail(msg);
  }
  printf("M noop %.3f ns/event\n", ns / 2);
}

/* Diagnostic (not in the default list): the no-op handler with the caller's
 * stack moved by 0, 16, 32 and 48 bytes, blocks interleaved in one process.
 * A trampoline that stores 32-byte registers to a 16-byte aligned area pays
 * for cache-line splits at half of these offsets. */
__attribute__((noinline)) static long leaf_at_offset(long n, int off) {
  volatile char *pad = __builtin_alloca((size_t)off + 16);
  pad[0] = 0;
  return timed_leaf(n) + pad[0];
}

static void scenario_noop_stack(long n) {
  knob_no_avx512();
  if (__xray_patch() != SUCCESS)
    fail("patch");
  if (!__xray_set_handler(counting_handler))
    fail("set_handler");
  timed_leaf(WARMUP);
  long per = n / BLOCKS;
  double best[4] = {1e300, 1e300, 1e300, 1e300};
  for (int b = 0; b < BLOCKS; b++)
    for (int k = 0; k < 4; k++) {
      double t0 = now_ns();
      leaf_at_offset(per, 16 * k);
      double t = now_ns() - t0;
      if (t < best[k])
        best[k] = t;
    }
  __xray_remove_handler();
  __xray_unpatch();
  for (int k = 0; k < 4; k++)
    printf("M noop-stack+%d %.3f ns/event\n", 16 * k,
           best[k] / (2.0 * (double)per));
}

/* Basic mode is initialised from the environment (XRAY_OPTIONS
 * xray_mode=xray-basic, XRAY_BASIC_OPTIONS), the one way in which
 * compiler-rt also writes the main thread's last buffer at exit. */
static void scenario_basic(long n) {
  if (__xray_patch() != SUCCESS)
    fail("patch");
  timed_leaf(WARMUP);
  long calls;
  double ns = fastest_block(timed_leaf, n, BLOCKS, &calls);
  __xray_unpatch();
  expect_calls(calls + WARMUP, 1);
  printf("M basic %.3f ns/event\n", ns / 2);
}

/* FDR is selected and initialised from code, as compiler-rt requires:
 * select, init_mode with a config, then patch. */
static int fdr_start_with(const char *cfg) {
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK) {
    fail("select xray-fdr");
    return 0;
  }
  double t0 = now_ns();
  XRayLogInitStatus st = __xray_log_init_mode("xray-fdr", cfg);
  double t1 = now_ns();
  if (st != XRAY_LOG_INITIALIZED) {
    fail("init xray-fdr");
    return 0;
  }
  /* How long start takes with these buffers (scenario fdr: about 20 MiB). */
  printf("M fdr-init %.3f ms\n", (t1 - t0) / 1e6);
  if (__xray_patch() != SUCCESS)
    fail("patch");
  return 1;
}

/* The buffers are sized to hold every event, so nothing may be
 * overwritten. */
static int fdr_start(long events) {
  char cfg[512];
  long bytes = events * 8 + (4L << 20);
  long buffer_size = 1L << 20;
  /* BENCH_FDR_EXTRA: more options for ours only (e.g. the slow-call
   * trigger, to measure what it adds per event; docs/performance.md). */
  const char *extra = getenv("BENCH_FDR_EXTRA");
  snprintf(cfg, sizeof cfg,
           "func_duration_threshold_us=0:buffer_size=%ld:buffer_max=%ld %s",
           buffer_size, bytes / buffer_size + 8, extra ? extra : "");
  return fdr_start_with(cfg);
}

/* The bound of a flush: one write(2) of as many bytes as the log has, from
 * memory already faulted in, to a new file in the same directory (so the
 * same file system), open and close included. The log is the file named
 * <program>.<suffix> in the working directory (both runtimes' name, with
 * run.sh's xray_logfile_base). Returns milliseconds, or -1. */
static double one_write_of_log_ms(void) {
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s.", program_invocation_short_name);
  size_t n = strlen(prefix);
  DIR *d = opendir(".");
  if (!d)
    return -1;
  off_t size = -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    if (!strncmp(e->d_name, prefix, n) && stat(e->d_name, &st) == 0)
      size = st.st_size;
  }
  closedir(d);
  if (size <= 0)
    return -1;
  char *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (buf == MAP_FAILED)
    return -1;
  memset(buf, 0x5a, (size_t)size);
  double t0 = now_ns();
  int fd = open("one-write.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ssize_t w = fd < 0 ? -1 : write(fd, buf, (size_t)size);
  if (fd >= 0)
    close(fd);
  double t = now_ns() - t0;
  unlink("one-write.tmp");
  munmap(buf, (size_t)size);
  return w == size ? t / 1e6 : -1;
}

static long minor_faults(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

static void fdr_stop_as(const char *metric) {
  long faults = minor_faults();
  double t0 = now_ns();
  int fin = __xray_log_finalize();
  int fl = __xray_log_flushLog();
  double t1 = now_ns();
  faults = minor_faults() - faults;
  __xray_unpatch();
  if (fin != XRAY_LOG_FINALIZED)
    fail("finalize");
  if (fl != XRAY_LOG_FLUSHED)
    fail("flush");
  printf("M %s %.3f ms\n", metric, (t1 - t0) / 1e6);
  /* Page faults the flush took in the process (the file's own pages are
   * the kernel's, not counted here). */
  printf("M %s-faults %ld faults\n", metric, faults);
  double one = one_write_of_log_ms();
  if (one > 0) {
    printf("M %s-write1 %.3f ms\n", metric, one);
    printf("M %s-per-write %.3f x\n", metric, (t1 - t0) / 1e6 / one);
  }
}
static void fdr_stop(void) { fdr_stop_as("fdr-flush"); }

static double thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Besides the fastest block, the mean over all blocks: every buffer here is
 * used for the first time, so that figure includes each buffer switch and
 * whatever a runtime does when it first touches a buffer's memory. The
 * same in the thread's CPU time (fdr-mean-cpu: its page faults included,
 * the time it lost the CPU to other programs not): steadier on a shared
 * machine. */
static void scenario_fdr(long n) {
  if (!fdr_start(2 * (n + WARMUP)))
    return;
  timed_leaf(WARMUP);
  long calls;
  double c0 = thread_cpu_ns();
  double t0 = now_ns();
  double ns = fastest_block(timed_leaf, n, BLOCKS, &calls);
  double mean = (now_ns() - t0) / (double)calls;
  double cpu = (thread_cpu_ns() - c0) / (double)calls;
  fdr_stop();
  expect_calls(calls + WARMUP, 1);
  printf("M fdr %.3f ns/event\n", ns / 2);
  printf("M fdr-mean %.3f ns/event\n", mean / 2);
  printf("M fdr-mean-cpu %.3f ns/event\n", cpu / 2);
}

/* FDR with its default buffers (both runtimes: 100 of 16 KiB), filled to
 * about nine tenths (n <= 90000 calls), so nothing is overwritten and the
 * counts stay exact; the figure is finalize + flush of that log. */
static void scenario_fdr_default(long n) {
  if (!fdr_start_with("func_duration_threshold_us=0"))
    return;
  timed_leaf(WARMUP);
  timed_leaf(n);
  fdr_stop_as("fdr-flush-default");
  expect_calls(n + WARMUP, 1);
}

/* FDR with two threads: each block starts both threads together at a
 * barrier; each thread stamps its own start and end (the main thread may be
 * descheduled at any time, so it does not time anything). A block's wall
 * time runs from the earlier start to the later end; the figure is the
 * fastest block's wall time over all events of both threads. */
/* A spinning barrier, not pthread_barrier_wait: a thread blocked in the
 * kernel leaves its vCPU idle, and waking an idle vCPU here takes up to a
 * block's length (both runtimes' threads then ran one after the other in
 * some processes, ours more often, as its blocks are shorter). Spinning
 * keeps both threads on CPU, so a block measures the runtimes. */
static unsigned block_arrived, block_generation;
static void block_start(void) {
  unsigned gen = __atomic_load_n(&block_generation, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&block_arrived, 1, __ATOMIC_ACQ_REL) == 2) {
    __atomic_store_n(&block_arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&block_generation, gen + 1, __ATOMIC_RELEASE);
    return;
  }
  while (__atomic_load_n(&block_generation, __ATOMIC_ACQUIRE) == gen)
    __builtin_ia32_pause();
}
static long thread_calls;
static double stamps[2][BLOCKS][2];
TIMED void *timed_thread(void *arg) {
  int me = (int)(intptr_t)arg;
  timed_leaf(WARMUP);
  for (int b = 0; b < BLOCKS; b++) {
    block_start();
    stamps[me][b][0] = now_ns();
    timed_leaf(thread_calls / BLOCKS);
    stamps[me][b][1] = now_ns();
  }
  return NULL;
}

static void scenario_fdr_2t(long n) {
  if (!fdr_start(4 * (n + WARMUP)))
    return;
  pthread_t t[2];
  long per = n / BLOCKS;
  double best = 1e300;
  thread_calls = n;
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, timed_thread, (void *)(intptr_t)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int b = 0; b < BLOCKS; b++) {
    double start = stamps[0][b][0] < stamps[1][b][0] ? stamps[0][b][0]
                                                     : stamps[1][b][0];
    double end = stamps[0][b][1] > stamps[1][b][1] ? stamps[0][b][1]
                                                   : stamps[1][b][1];
    if (end - start < best)
      best = end - start;
  }
  fdr_stop();
  expect_calls(per * BLOCKS + WARMUP, 2);
  printf("M fdr-2t %.3f ns/event\n", best / (4.0 * (double)per));
}

/* Profiling: a depth-5 call tree (bench_tree loops over a 4-deep chain);
 * the counts in the profile must add up to every call made: 4 per
 * iteration, plus 1 per bench_tree() call (warm-up and one per block). */
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
  long calls;
  double ns = fastest_block(timed_tree, n, PROFILING_BLOCKS, &calls);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    fail("finalize");
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    fail("flush");
  __xray_unpatch();
  printf("E calls %ld\n", 4 * (calls + WARMUP) + 1 + PROFILING_BLOCKS);
  printf("M profiling %.3f ns/event\n", ns / 8);
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
  else if (!strcmp(s, "noop-stack"))
    scenario_noop_stack(n);
  else if (!strcmp(s, "basic"))
    scenario_basic(n);
  else if (!strcmp(s, "fdr"))
    scenario_fdr(n);
  else if (!strcmp(s, "fdr-default"))
    scenario_fdr_default(n);
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
