/* The budget's policy: which functions to cull, which to let back.
 * See budget_policy.h for the model and the rules; this file only counts. */
#include "budget/budget_policy.h"

#include <math.h>

#include "core/base/heap_sort.h"

/* The estimate's share of the program's own CPU time (budget_policy.h):
 * written so that no input makes it divide by zero or yield a NaN. */
static double share_of(double sum, double cpu_ns_per_s) {
  if (!(sum > 0))
    return 0;
  if (!(cpu_ns_per_s > sum))
    return INFINITY;
  return sum / (cpu_ns_per_s - sum);
}

/* The wait after a function's culls-th cull: doubling from the first,
 * held to the maximum (a loop, not a shift: no overflow whatever culls). */
static uint64_t retry_wait(uint32_t culls) {
  uint64_t wait = XR_BUDGET_RETRY_FIRST_NS;
  for (uint32_t i = 1; i < culls && wait < XR_BUDGET_RETRY_MAX_NS; i++)
    wait *= 2;
  return wait < XR_BUDGET_RETRY_MAX_NS ? wait : XR_BUDGET_RETRY_MAX_NS;
}

static uint64_t later_by(uint64_t now, uint64_t wait) {
  return now > UINT64_MAX - wait ? UINT64_MAX : now + wait;
}

static int order_u32(uint32_t a, uint32_t b) { return (a > b) - (a < b); }

/* Culling order over indices of fns (ctx): timed calls by mean duration
 * ascending, then the untimed (longer than the window); then calls per
 * second descending, key, index. */
static int cull_first(const void *pa, const void *pb, void *ctx) {
  const struct xr_budget_fn *fns = ctx;
  uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
  const struct xr_budget_fn *a = &fns[ia], *b = &fns[ib];
  bool timed_a = a->mean_ns >= 0, timed_b = b->mean_ns >= 0;
  if (timed_a != timed_b)
    return timed_a ? -1 : 1;
  if (timed_a && a->mean_ns != b->mean_ns)
    return a->mean_ns < b->mean_ns ? -1 : 1;
  if (a->calls_per_s != b->calls_per_s)
    return a->calls_per_s > b->calls_per_s ? -1 : 1;
  if (a->key != b->key)
    return order_u32(a->key, b->key);
  return order_u32(ia, ib);
}

/* Readmission order: cheapest remembered cost first, then key, index. */
static int cheapest_first(const void *pa, const void *pb, void *ctx) {
  const struct xr_budget_fn *fns = ctx;
  uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
  const struct xr_budget_fn *a = &fns[ia], *b = &fns[ib];
  if (a->cost_per_s != b->cost_per_s)
    return a->cost_per_s < b->cost_per_s ? -1 : 1;
  if (a->key != b->key)
    return order_u32(a->key, b->key);
  return order_u32(ia, ib);
}

void xr_budget_decide(struct xr_budget_fn *fns, size_t n,
                      const struct xr_budget_inputs *in, uint32_t *cull,
                      uint32_t *readmit, struct xr_budget_result *out) {
  if (n > UINT32_MAX)
    n = UINT32_MAX; /* the scratch holds uint32_t indices (budget_policy.h) */
  double budget = in->budget > 0 ? in->budget : 0;
  double low = XR_BUDGET_LOW * budget;
  double event_ns = in->event_ns > 0 ? in->event_ns : 0;
  double sum = in->overhead_ns_per_s > 0 ? in->overhead_ns_per_s : 0;

  /* The new costs; the cull candidates' indices into cull[], the culled
   * functions due for a retry into readmit[]. */
  size_t candidates = 0, due = 0;
  for (size_t i = 0; i < n; i++) {
    struct xr_budget_fn *f = &fns[i];
    if (f->state == XR_BUDGET_CULLED) {
      if (in->now_ns >= f->retry_at_ns)
        readmit[due++] = (uint32_t)i;
      continue;
    }
    double calls = f->calls_per_s > 0 ? f->calls_per_s : 0;
    f->cost_per_s = 2 * event_ns * calls;
    sum += f->cost_per_s;
    if (f->state == XR_BUDGET_TRACED && f->cost_per_s > 0)
      cull[candidates++] = (uint32_t)i;
  }
  out->share_before = share_of(sum, in->cpu_ns_per_s);

  /* Culls: above the budget only, down to XR_BUDGET_LOW of it. */
  size_t culled = 0;
  if (out->share_before > budget) {
    xr_heap_sort_ctx(cull, candidates, sizeof *cull, cull_first, fns);
    while (culled < candidates && share_of(sum, in->cpu_ns_per_s) > low) {
      struct xr_budget_fn *f = &fns[cull[culled]];
      sum -= f->cost_per_s;
      if (f->culls < UINT32_MAX)
        f->culls++;
      f->retry_at_ns = later_by(in->now_ns, retry_wait(f->culls));
      cull[culled++] = f->key;
    }
  }

  /* Retries: those that fit come back, the others halve their remembered
   * cost and wait again. readmit[] is read at i and written at
   * readmitted <= i. */
  xr_heap_sort_ctx(readmit, due, sizeof *readmit, cheapest_first, fns);
  size_t readmitted = 0;
  for (size_t i = 0; i < due; i++) {
    struct xr_budget_fn *f = &fns[readmit[i]];
    if (share_of(sum + f->cost_per_s, in->cpu_ns_per_s) <= low) {
      sum += f->cost_per_s;
      readmit[readmitted++] = f->key;
    } else {
      f->cost_per_s /= 2;
      f->retry_at_ns = later_by(in->now_ns, retry_wait(f->culls));
    }
  }

  out->share_after = share_of(sum, in->cpu_ns_per_s);
  out->culled = culled;
  out->readmitted = readmitted;
  out->unmet = out->share_after > budget;
}
