/* The floors: what the hardware charges before any runtime code runs.
 *
 * Usage: bench_floor CALLS. Plain C loops, no XRay: a call of an empty
 * function, one rdtsc, one rdtscp, one clock_gettime, one gettid system call,
 * and an FDR-style pair of 8-byte records (enter + exit, each stamped with
 * its own rdtsc or rdtscp and stored as a 32-bit delta) into a 1 MiB ring.
 * These bound what the modes can reach; docs/performance.md quotes them.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline)) int empty_fn(int x) { return x; }

#define RING_WORDS (1u << 17) /* 1 MiB of 8-byte records */
static uint64_t ring[RING_WORDS];
static volatile uint64_t sink;

typedef void (*loop_fn)(long);

static void loop_call(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += empty_fn((int)i);
  sink = (uint64_t)s;
}
static void loop_rdtsc(long n) {
  uint64_t s = 0;
  for (long i = 0; i < n; i++)
    s += __rdtsc();
  sink = s;
}
static void loop_rdtscp(long n) {
  uint64_t s = 0;
  unsigned cpu;
  for (long i = 0; i < n; i++)
    s += __rdtscp(&cpu) + cpu;
  sink = s;
}
static void loop_clock(long n) {
  uint64_t s = 0;
  struct timespec ts;
  for (long i = 0; i < n; i++) {
    clock_gettime(CLOCK_REALTIME, &ts);
    s += (uint64_t)ts.tv_nsec;
  }
  sink = s;
}
static void loop_gettid(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += syscall(SYS_gettid);
  sink = (uint64_t)s;
}
/* One "call" = enter record + exit record, as FDR writes them. */
static void loop_pair_rdtsc(long n) {
  uint64_t last = __rdtsc();
  unsigned pos = 0;
  for (long i = 0; i < n; i++) {
    uint64_t t = __rdtsc();
    ring[pos] = (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4);
    last = t;
    t = __rdtsc();
    ring[pos + 1] =
        (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4 | 2);
    last = t;
    pos = (pos + 2) & (RING_WORDS - 1);
  }
}
static void loop_pair_rdtscp(long n) {
  unsigned cpu;
  uint64_t last = __rdtscp(&cpu);
  unsigned pos = 0;
  for (long i = 0; i < n; i++) {
    uint64_t t = __rdtscp(&cpu);
    ring[pos] = (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4);
    last = t;
    t = __rdtscp(&cpu);
    ring[pos + 1] =
        (uint64_t)(uint32_t)(t - last) << 32 | ((uint32_t)i << 4 | 2);
    last = t;
    pos = (pos + 2) & (RING_WORDS - 1);
  }
}

static void measure(const char *name, loop_fn f, long n, const char *unit) {
  f(n / 10 + 1); /* warm caches and the ring */
  double t0 = now_ns();
  f(n);
  double t1 = now_ns();
  printf("M %s %.3f %s\n", name, (t1 - t0) / (double)n, unit);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  measure("floor-call", loop_call, n, "ns/call");
  measure("floor-rdtsc", loop_rdtsc, n, "ns/op");
  measure("floor-rdtscp", loop_rdtscp, n, "ns/op");
  measure("floor-clock_gettime", loop_clock, n, "ns/op");
  measure("floor-gettid", loop_gettid, n / 10 + 1, "ns/op");
  measure("floor-fdr-pair-rdtsc", loop_pair_rdtsc, n, "ns/call");
  measure("floor-fdr-pair-rdtscp", loop_pair_rdtscp, n, "ns/call");
  printf("C ok\n");
  return 0;
}
