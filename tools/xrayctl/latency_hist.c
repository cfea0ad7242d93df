/* Log-linear histograms. See latency_hist.h. */
#include "latency_hist.h"

#include <stdlib.h>
#include <string.h>

bool ctl_hist_new_row(struct ctl_hist_pool *pool, struct ctl_hist *h, unsigned r) {
  if (pool->n == pool->cap) {
    size_t cap = pool->cap ? 2 * pool->cap : 1024;
    uint64_t(*bigger)[32] = realloc(pool->rows, cap * sizeof *bigger);
    if (bigger == NULL)
      return false;
    pool->rows = bigger;
    pool->cap = cap;
  }
  memset(pool->rows[pool->n], 0, sizeof pool->rows[0]);
  h->row[r] = (uint32_t)++pool->n;
  return true;
}

uint64_t ctl_hist_at(const struct ctl_hist_pool *pool, const struct ctl_hist *h,
                     uint64_t k) {
  uint64_t seen = 0;
  for (unsigned r = 0; r < CTL_HIST_ROWS; r++) {
    if (h->row[r] == 0)
      continue;
    const uint64_t *row = pool->rows[h->row[r] - 1];
    for (unsigned b = 0; b < 32; b++) {
      seen += row[b];
      if (seen > k) {
        if (r == 0)
          return b;
        unsigned shift = r - 1; /* bucket width 2^shift */
        uint64_t low = (uint64_t)(32 + b) << shift;
        return low + (((uint64_t)1 << shift) >> 1);
      }
    }
  }
  return 0;
}

void ctl_hist_pool_free(struct ctl_hist_pool *pool) {
  free(pool->rows);
  memset(pool, 0, sizeof *pool);
}
