/* What the two scenario drivers (bench_main.c, bench_events.c) share: the
 * "F <reason>" check lines and the fastest-block timing (bench_main.c's
 * head comment says why the fastest block). */
#ifndef BENCH_DRIVER_H
#define BENCH_DRIVER_H

#include <stdio.h>

#include "bench_time.h"

static int failures;
static inline void fail(const char *what) {
  printf("F %s\n", what);
  failures++;
}

/* Runs loop(n / blocks) `blocks` times; returns the fastest block's ns per
 * call and stores the calls made in *calls. */
static inline double fastest_block(long (*loop)(long), long n, int blocks,
                                   long *calls) {
  long per = n / blocks;
  double best = 1e300;
  for (int b = 0; b < blocks; b++) {
    double t0 = now_ns();
    loop(per);
    double t = now_ns() - t0;
    if (t < best)
      best = t;
  }
  *calls = per * blocks;
  return best / (double)per;
}

#endif
