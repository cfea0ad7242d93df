/* Name resolution over a program with many instrumented functions
 * (names_bench.sh generates them: C++ functions mod<k>::item<i>(int), so
 * demangling is part of the cost). One process measures, in ms:
 *   M load       the first __xray_load_names(): read .symtab, sort, look up
 *                every id, demangle, copy into the table (once per process)
 *   M load_cpu   the same in CPU time of the thread
 *   M resolve    __xray_patch_matching("*::nomatch*"): the pattern tried on
 *                every name, nothing to patch (the fastest of REPEATS)
 *   M resolve_cpu  the same in CPU time
 *   M resolve10  __xray_patch_matching("*mod?::*"): 10 of 100 modules match,
 *                resolve + patch those (the fastest of REPEATS)
 *   M lookup     __xray_function_ids of one exact name (the fastest)
 * and checks the counts (every function named, the 10% really patched).
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "xray/xray_interface.h"
#include "xray/xray_names.h"

#define REPEATS 5

static double clock_ms(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* CPU time of this thread: on a shared machine wall time also counts the
 * time other processes held the CPU. */
static double cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

static int count_named(void *ctx, int32_t id, const char *name, const char *symbol,
                       uintptr_t address) {
  (void)id, (void)address;
  *(long *)ctx += name != NULL && symbol != NULL && name[0] != '_';
  return 0;
}

int main(void) {
  long n = (long)__xray_max_function_id();
  double t0 = now_ms(), c0 = cpu_ms();
  if (__xray_load_names() != XRAY_NAMES_OK)
    return 1;
  printf("M load %.3f\nM load_cpu %.3f\n", now_ms() - t0, cpu_ms() - c0);
  long named = 0;
  __xray_for_each_function(count_named, &named);
  if (named != n) {
    fprintf(stderr, "bench_names: %ld of %ld functions have a demangled name\n", named, n);
    return 1;
  }
  double best = 1e30, best_cpu = 1e30, best10 = 1e30, best_lookup = 1e30;
  for (int r = 0; r < REPEATS; r++) {
    t0 = now_ms();
    c0 = cpu_ms();
    int got = __xray_patch_matching("*::nomatch*");
    double t = now_ms() - t0, c = cpu_ms() - c0;
    if (got != 0)
      return 2;
    best = t < best ? t : best;
    best_cpu = c < best_cpu ? c : best_cpu;
    t0 = now_ms();
    got = __xray_patch_matching("*mod?::*");
    t = now_ms() - t0;
    if (got != n / 10) {
      fprintf(stderr, "bench_names: '*mod?::*' matched %d, expected %ld\n", got, n / 10);
      return 3;
    }
    best10 = t < best10 ? t : best10;
    __xray_unpatch();
    int32_t id;
    t0 = now_ms();
    got = __xray_function_ids("mod42::item1(int)", &id, 1);
    t = now_ms() - t0;
    if (got != 1)
      return 4;
    best_lookup = t < best_lookup ? t : best_lookup;
  }
  printf("M resolve %.3f\nM resolve_cpu %.3f\nM resolve10 %.3f\nM lookup %.3f\n"
         "M functions %ld\n", best, best_cpu, best10, best_lookup, n);
  return 0;
}
