/* Percentiles of call durations in bounded memory: a log-linear histogram
 * per function, 32 equal buckets per power of two. Values below 32 are
 * exact; above, a value is reported as the middle of its bucket, within
 * 1/64 (1.6 %) of the true one. A row of 32 buckets (256 bytes) is taken
 * from the pool the first time a function has a duration of that power of
 * two, so a function costs 256 bytes per power of two its calls span. */
#ifndef XRAYCTL_LATENCY_HIST_H
#define XRAYCTL_LATENCY_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define CTL_HIST_ROWS 60 /* values 0..31, then 2^5 .. 2^63 */

struct ctl_hist {
  uint32_t row[CTL_HIST_ROWS]; /* 1 + index into the pool; 0: none yet */
};

struct ctl_hist_pool {
  uint64_t (*rows)[32];
  size_t n, cap;
};

/* Row and bucket of v: row 0 holds 0..31 one by one; row r >= 1 holds the
 * values whose top bit is bit r + 4, in 32 buckets of 2^(r-1) each. */
static inline unsigned ctl_hist_row(uint64_t v, unsigned *bucket) {
  if (v < 32) {
    *bucket = (unsigned)v;
    return 0;
  }
  unsigned top = 63u - (unsigned)__builtin_clzll(v);
  *bucket = (unsigned)(v >> (top - 5)) & 31u;
  return top - 4;
}

/* Takes a fresh row for h's row r; false when the pool cannot grow. */
bool ctl_hist_new_row(struct ctl_hist_pool *pool, struct ctl_hist *h, unsigned r);

/* Counts v. False when the pool cannot grow (out of memory). */
static inline bool ctl_hist_add(struct ctl_hist_pool *pool, struct ctl_hist *h,
                                uint64_t v) {
  unsigned b, r = ctl_hist_row(v, &b);
  if (h->row[r] == 0 && !ctl_hist_new_row(pool, h, r))
    return false;
  pool->rows[h->row[r] - 1][b]++;
  return true;
}

/* The k-th smallest value counted (0-based; k below the count). */
uint64_t ctl_hist_at(const struct ctl_hist_pool *pool, const struct ctl_hist *h,
                     uint64_t k);

void ctl_hist_pool_free(struct ctl_hist_pool *pool);

#endif
