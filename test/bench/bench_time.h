/* What every benchmark program times with: CLOCK_MONOTONIC in ns. */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <time.h>

static inline double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#endif
