/* budget_policy.c: which functions the budget culls and lets back, with
 * made-up rates and durations. The numbers are chosen so that every cost
 * and sum is an integer a double holds exactly: the expected shares below
 * are the header's formula on those sums, compared bit for bit.
 *
 * Throughout: an event costs 25 ns, so a call costs 50 ns; the program
 * uses 1e9 CPU ns per second (one CPU busy); xray_budget=2 (0.02), so the
 * culls stop at XR_BUDGET_LOW * 0.02 = 0.015. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "budget/budget_policy.h"

#define SEC 1000000000ull
#define CPU 1e9
#define EVENT_NS 25.0
#define BUDGET 0.02
#define MAX_FNS 16

/* A double compared exactly, printed in full when it differs. */
#define assert_exact(value, expected)                                        \
  do {                                                                     \
    double v_ = (value), e_ = (expected);                                  \
    if (!(v_ == e_))                                                       \
      fail_msg("%s = %.17g, expected %.17g", #value, v_, e_);              \
  } while (0)

static struct xr_budget_fn fn(uint32_t key, uint8_t state, double calls_per_s,
                              double mean_ns) {
  struct xr_budget_fn f = {0};
  f.key = key;
  f.state = state;
  f.calls_per_s = calls_per_s;
  f.mean_ns = mean_ns;
  return f;
}

static struct xr_budget_inputs inputs(double budget, uint64_t now_ns) {
  struct xr_budget_inputs in = {0};
  in.budget = budget;
  in.event_ns = EVENT_NS;
  in.cpu_ns_per_s = CPU;
  in.now_ns = now_ns;
  return in;
}

/* The share the header defines, for a sum the test knows exactly. */
static double share(double sum) { return sum / (CPU - sum); }

struct eval {
  uint32_t cull[MAX_FNS], readmit[MAX_FNS];
  struct xr_budget_result r;
};

static void decide(struct xr_budget_fn *fns, size_t n, const struct xr_budget_inputs *in,
                   struct eval *e) {
  assert_true(n <= MAX_FNS);
  memset(e, 0xa5, sizeof *e); /* no output left over from a previous call */
  xr_budget_decide(fns, n, in, e->cull, e->readmit, &e->r);
}

/* What the controller does with a decision: the culled stop calling in
 * (no events), the readmitted are traced again. Keys are indices here. */
static void apply(struct xr_budget_fn *fns, const struct eval *e) {
  for (size_t i = 0; i < e->r.culled; i++) {
    fns[e->cull[i]].state = XR_BUDGET_CULLED;
    fns[e->cull[i]].calls_per_s = 0;
    fns[e->cull[i]].mean_ns = -1;
  }
  for (size_t i = 0; i < e->r.readmitted; i++)
    fns[e->readmit[i]].state = XR_BUDGET_TRACED;
}

/* The hot tiny function goes first; the slow one stays even when the
 * budget is tightened past a function of middle length. */
static void hot_tiny_culled_first_slow_never(void **state) {
  (void)state;
  struct xr_budget_fn fns[3] = {
      fn(0, XR_BUDGET_TRACED, 200, 5e6),      /* slow: 5 ms calls, 1e4 ns/s */
      fn(1, XR_BUDGET_TRACED, 20000, 2000),   /* middle: 1e6 ns/s */
      fn(2, XR_BUDGET_TRACED, 500000, 20),    /* hot tiny: 2.5e7 ns/s */
  };
  struct xr_budget_inputs in = inputs(BUDGET, 10 * SEC);
  struct eval e;
  decide(fns, 3, &in, &e);
  assert_exact(e.r.share_before, share(26010000)); /* 2.67 % */
  assert_int_equal(e.r.culled, 1);
  assert_int_equal(e.cull[0], 2);
  assert_exact(e.r.share_after, share(1010000));
  assert_int_equal(e.r.readmitted, 0);
  assert_false(e.r.unmet);
  apply(fns, &e);

  /* Under the budget: nothing moves. */
  in.now_ns += SEC / 100;
  decide(fns, 3, &in, &e);
  assert_int_equal(e.r.culled, 0);
  assert_int_equal(e.r.readmitted, 0);

  /* 0.05 %: the middle one (0.1 %) goes, the slow one (0.001 %) stays. */
  in.budget = 0.0005;
  in.now_ns += SEC / 100;
  decide(fns, 3, &in, &e);
  assert_int_equal(e.r.culled, 1);
  assert_int_equal(e.cull[0], 1);
  assert_exact(e.r.share_after, share(10000));
  assert_int_equal(fns[0].state, XR_BUDGET_TRACED);
  assert_int_equal(fns[0].culls, 0);
}

/* Timed calls by mean duration, shortest first; then the untimed (longer
 * than the window); ties by rate, most called first, then by key. A
 * function not called in the window costs nothing and is never culled. */
static void order_by_duration_then_rate_then_key(void **state) {
  (void)state;
  const struct xr_budget_fn table[] = {
      fn(10, XR_BUDGET_TRACED, 1e6, -1),
      fn(11, XR_BUDGET_TRACED, 1000, 300),
      fn(12, XR_BUDGET_TRACED, 1000, 100),
      fn(13, XR_BUDGET_TRACED, 5000, 100),
      fn(9, XR_BUDGET_TRACED, 1000, 100),
      fn(14, XR_BUDGET_TRACED, 2e6, -1),
      fn(15, XR_BUDGET_TRACED, 1, 0),
      fn(16, XR_BUDGET_TRACED, 0, 50),
      fn(17, XR_BUDGET_TRACED, 1e6, -1),
  };
  const uint32_t order[] = {15, 13, 9, 12, 11, 14, 10, 17};
  enum { N = XR_ARRAY_SIZE(table) };
  /* Budget 0: every function that costs anything goes, in order; and the
   * same order whichever way the caller's table runs. */
  struct xr_budget_inputs in = inputs(0, SEC);
  for (int reversed = 0; reversed < 2; reversed++) {
    struct xr_budget_fn fns[N];
    for (size_t i = 0; i < N; i++)
      fns[i] = table[reversed ? N - 1 - i : i];
    struct eval e;
    decide(fns, N, &in, &e);
    assert_int_equal(e.r.culled, XR_ARRAY_SIZE(order));
    for (size_t i = 0; i < XR_ARRAY_SIZE(order); i++)
      assert_int_equal(e.cull[i], order[i]);
    assert_exact(e.r.share_after, 0);
    assert_false(e.r.unmet);
    /* fns is the caller's table: not reordered. */
    for (size_t i = 0; i < N; i++)
      assert_int_equal(fns[i].key, table[reversed ? N - 1 - i : i].key);
  }
}

/* The culls stop as soon as the estimate is at or under 0.015: here after
 * the second (one would leave 1.63 %). The budget's own cost counts. */
static void estimate_after_culls_exact(void **state) {
  (void)state;
  struct xr_budget_fn fns[5] = {
      fn(1, XR_BUDGET_TRACED, 200000, 40),  /* 1e7 ns/s */
      fn(2, XR_BUDGET_TRACED, 200000, 100), /* 1e7 */
      fn(3, XR_BUDGET_TRACED, 100000, 1000), /* 5e6 */
      fn(4, XR_BUDGET_TRACED, 1000, 1e6),   /* 5e4 */
      fn(5, XR_BUDGET_TRACED, 10, -1),      /* 500 */
  };
  struct xr_budget_inputs in = inputs(BUDGET, 7 * SEC);
  in.overhead_ns_per_s = 1e6;
  struct eval e;
  decide(fns, 5, &in, &e);
  assert_exact(e.r.share_before, share(26050500)); /* 2.67 % */
  assert_int_equal(e.r.culled, 2);
  assert_int_equal(e.cull[0], 1);
  assert_int_equal(e.cull[1], 2);
  assert_true(share(16050500) > XR_BUDGET_LOW * BUDGET); /* one cull: not enough */
  assert_exact(e.r.share_after, share(6050500));          /* 0.61 % */
  assert_true(e.r.share_after <= XR_BUDGET_LOW * BUDGET);
  assert_false(e.r.unmet);
  /* Costs from this window; the culled wait the first wait. */
  assert_exact(fns[0].cost_per_s, 1e7);
  assert_exact(fns[2].cost_per_s, 5e6);
  assert_exact(fns[4].cost_per_s, 500);
  assert_int_equal(fns[0].culls, 1);
  assert_int_equal(fns[0].retry_at_ns, 7 * SEC + XR_BUDGET_RETRY_FIRST_NS);
  assert_int_equal(fns[1].retry_at_ns, 7 * SEC + XR_BUDGET_RETRY_FIRST_NS);
  assert_int_equal(fns[2].culls, 0);
  assert_int_equal(fns[2].retry_at_ns, 0);
}

/* The budget's own cost counts in the estimate: functions of 1.505e7 ns/s
 * (1.53 %) are within 2 % alone and above it with
 * 5e6 ns/s of windows (2.05 %). */
static void own_cost_counts(void **state) {
  (void)state;
  struct xr_budget_fn fns[4] = {
      fn(1, XR_BUDGET_TRACED, 200000, 40),   /* 1e7 ns/s */
      fn(3, XR_BUDGET_TRACED, 100000, 1000), /* 5e6 */
      fn(4, XR_BUDGET_TRACED, 1000, 1e6),    /* 5e4 */
      fn(5, XR_BUDGET_TRACED, 10, -1),       /* 500 */
  };
  struct xr_budget_inputs in = inputs(BUDGET, SEC);
  struct eval e;
  decide(fns, 4, &in, &e);
  assert_exact(e.r.share_before, share(15050500));
  assert_int_equal(e.r.culled, 0);
  in.overhead_ns_per_s = 5e6;
  decide(fns, 4, &in, &e);
  assert_exact(e.r.share_before, share(20050500));
  assert_int_equal(e.r.culled, 1);
  assert_int_equal(e.cull[0], 1);
  assert_exact(e.r.share_after, share(10050500));
}

/* Protected functions count and are never culled; when they alone are
 * above the budget, every cullable one goes and the result says unmet. */
static void protected_never_culled_unmet(void **state) {
  (void)state;
  struct xr_budget_fn fns[3] = {
      fn(0, XR_BUDGET_PROTECTED, 1e6, 10), /* 5e7 ns/s: 5.3 % alone */
      fn(1, XR_BUDGET_TRACED, 10000, 50),  /* 5e5 */
      fn(2, XR_BUDGET_TRACED, 100, -1),    /* 5e3 */
  };
  struct xr_budget_inputs in = inputs(BUDGET, SEC);
  struct eval e;
  decide(fns, 3, &in, &e);
  assert_int_equal(e.r.culled, 2);
  assert_int_equal(e.cull[0], 1);
  assert_int_equal(e.cull[1], 2);
  assert_exact(e.r.share_after, share(5e7));
  assert_true(e.r.unmet);
  assert_int_equal(fns[0].culls, 0);
  assert_exact(fns[0].cost_per_s, 5e7);

  /* The protected one at 1e7 ns/s (1.01 %): within 2 %, nothing culled... */
  struct xr_budget_fn met[3] = {
      fn(0, XR_BUDGET_PROTECTED, 200000, 10),
      fn(1, XR_BUDGET_TRACED, 10000, 50),
      fn(2, XR_BUDGET_TRACED, 100, -1),
  };
  decide(met, 3, &in, &e);
  assert_int_equal(e.r.culled, 0);
  assert_false(e.r.unmet);
  /* ...above 1 %: both others go, and 1.0101 % is still above: unmet. */
  in.budget = 0.01;
  decide(met, 3, &in, &e);
  assert_int_equal(e.r.culled, 2);
  assert_exact(e.r.share_after, share(1e7));
  assert_true(e.r.unmet);
  assert_int_equal(met[0].state, XR_BUDGET_PROTECTED);

  /* Protected at 1.6e7 ns/s (1.63 %): culling stops short of 1.5 % for
   * want of candidates, but within the budget: met. */
  struct xr_budget_fn between[2] = {
      fn(0, XR_BUDGET_PROTECTED, 320000, 10),
      fn(1, XR_BUDGET_TRACED, 100000, 50), /* 5e6 */
  };
  in.budget = BUDGET;
  decide(between, 2, &in, &e);
  assert_int_equal(e.r.culled, 1);
  assert_exact(e.r.share_after, share(1.6e7));
  assert_true(e.r.share_after > XR_BUDGET_LOW * BUDGET);
  assert_false(e.r.unmet);
}

/* A culled function with room to spare comes back at its retry time, not
 * a nanosecond before, and its remembered cost is not touched meanwhile. */
static void readmission_at_retry_time_when_it_fits(void **state) {
  (void)state;
  struct xr_budget_fn fns[2] = {
      fn(0, XR_BUDGET_TRACED, 400000, 30),  /* 2e7 ns/s */
      fn(1, XR_BUDGET_TRACED, 10000, 1e5),  /* 5e5 */
  };
  uint64_t t0 = 5 * SEC;
  struct xr_budget_inputs in = inputs(BUDGET, t0);
  struct eval e;
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.culled, 1);
  assert_int_equal(e.cull[0], 0);
  apply(fns, &e);
  assert_int_equal(fns[0].retry_at_ns, t0 + SEC);

  /* The program calls it less now; the budget cannot know until it is
   * traced again. A bigger budget (4 %) has room for its 2e7 ns/s. */
  in.budget = 0.04;
  for (uint64_t t = t0 + SEC / 100; t < t0 + SEC; t += SEC / 100) {
    in.now_ns = t;
    decide(fns, 2, &in, &e);
    assert_int_equal(e.r.readmitted, 0);
    assert_int_equal(e.r.culled, 0);
  }
  in.now_ns = t0 + SEC - 1;
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.readmitted, 0);
  assert_exact(fns[0].cost_per_s, 2e7);
  assert_int_equal(fns[0].retry_at_ns, t0 + SEC);

  in.now_ns = t0 + SEC;
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.readmitted, 1);
  assert_int_equal(e.readmit[0], 0);
  assert_exact(e.r.share_before, share(5e5));
  assert_exact(e.r.share_after, share(2.05e7)); /* 2.09 %: under 0.75 * 4 % */
  assert_exact(fns[0].cost_per_s, 2e7);
}

/* At a retry time where it does not fit, the remembered cost halves and the
 * wait starts again (the same wait: a cull doubles it, a retry does not). */
static void halving_at_retry_times(void **state) {
  (void)state;
  struct xr_budget_fn fns[2] = {
      fn(0, XR_BUDGET_CULLED, 0, -1),
      fn(1, XR_BUDGET_TRACED, 10000, 1e5), /* 5e5 */
  };
  fns[0].cost_per_s = 2e7;
  fns[0].culls = 3;            /* its wait: 4 s */
  fns[0].retry_at_ns = 100 * SEC;
  struct xr_budget_inputs in = inputs(BUDGET, 100 * SEC);
  struct eval e;
  /* 2.05e7: 2.09 % > 1.5 % */
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.readmitted, 0);
  assert_exact(fns[0].cost_per_s, 1e7);
  assert_int_equal(fns[0].retry_at_ns, 104 * SEC);
  assert_int_equal(fns[0].culls, 3);
  assert_exact(e.r.share_after, share(5e5));

  /* 1.05e7: 1.06 %, it fits, but only at 104 s. */
  in.now_ns = 104 * SEC - 1;
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.readmitted, 0);
  assert_exact(fns[0].cost_per_s, 1e7);
  in.now_ns = 104 * SEC;
  decide(fns, 2, &in, &e);
  assert_int_equal(e.r.readmitted, 1);
  assert_int_equal(e.readmit[0], 0);
  assert_exact(e.r.share_after, share(1.05e7));
}

/* Several due at once: the cheapest first, each while it fits; the rest
 * halve. */
static void cheapest_due_first(void **state) {
  (void)state;
  struct xr_budget_fn fns[4] = {
      fn(0, XR_BUDGET_CULLED, 0, -1),
      fn(1, XR_BUDGET_CULLED, 0, -1),
      fn(2, XR_BUDGET_CULLED, 0, -1),
      fn(3, XR_BUDGET_CULLED, 0, -1),
  };
  const double remembered[4] = {8e6, 4e6, 6e6, 4e6};
  for (int i = 0; i < 4; i++) {
    fns[i].cost_per_s = remembered[i];
    fns[i].culls = 1;
    fns[i].retry_at_ns = SEC;
  }
  fns[3].retry_at_ns = SEC + 1; /* not due */
  struct xr_budget_inputs in = inputs(BUDGET, SEC);
  struct eval e;
  /* 4e6 (key 1), then 6e6 (key 2): 1e7, 1.01 %; then 8e6 would be 1.8e7,
   * 1.83 % > 1.5 %: halved. */
  decide(fns, 4, &in, &e);
  assert_int_equal(e.r.readmitted, 2);
  assert_int_equal(e.readmit[0], 1);
  assert_int_equal(e.readmit[1], 2);
  assert_exact(e.r.share_after, share(1e7));
  assert_exact(fns[0].cost_per_s, 4e6);
  assert_int_equal(fns[0].retry_at_ns, 2 * SEC);
  assert_exact(fns[3].cost_per_s, 4e6);
  assert_int_equal(fns[3].retry_at_ns, SEC + 1);
}

/* Each cull doubles the wait, from 1 s up to 64 s, then stays. */
static void wait_doubles_to_the_maximum(void **state) {
  (void)state;
  const uint64_t waits[] = {1, 2, 4, 8, 16, 32, 64, 64, 64};
  struct xr_budget_fn fns[1] = {fn(0, XR_BUDGET_TRACED, 0, 30)};
  struct xr_budget_inputs in = inputs(BUDGET, SEC);
  struct eval e;
  for (size_t i = 0; i < XR_ARRAY_SIZE(waits); i++) {
    fns[0].state = XR_BUDGET_TRACED; /* as let back: still costly */
    fns[0].calls_per_s = 400000;
    decide(fns, 1, &in, &e);
    assert_int_equal(e.r.culled, 1);
    assert_int_equal(fns[0].culls, i + 1);
    assert_int_equal(fns[0].retry_at_ns, in.now_ns + waits[i] * SEC);
    in.now_ns = fns[0].retry_at_ns;
  }
  /* No overflow however often: the count and the wait stay held. */
  fns[0].culls = UINT32_MAX - 1;
  for (int i = 0; i < 2; i++) {
    fns[0].state = XR_BUDGET_TRACED;
    decide(fns, 1, &in, &e);
    assert_int_equal(fns[0].culls, UINT32_MAX);
    assert_int_equal(fns[0].retry_at_ns, in.now_ns + XR_BUDGET_RETRY_MAX_NS);
  }
  in.now_ns = UINT64_MAX - 5;
  fns[0].state = XR_BUDGET_TRACED;
  decide(fns, 1, &in, &e);
  assert_int_equal(fns[0].retry_at_ns, UINT64_MAX);
}

/* A phase change, evaluated every 10 ms for 30 s: H is hot (3e7 ns/s, 3 %
 * alone) before 0.5 s and from 5 s on, cheap (1e6 ns/s) between; B
 * (5e5 ns/s) is always traced. H is culled at once; its remembered cost
 * halves at each retry until it fits (1 s, 2 s: 3e7 -> 1.5e7 -> 7.5e6),
 * it comes back at 3 s and stays while it is cheap; hot again at 5 s, it is
 * culled with a wait of 2 s, comes back after two halvings (11 s), is
 * culled at the next evaluation with a wait of 4 s, comes back at 23.01 s,
 * and is culled again with a wait of 8 s: every readmission at least the
 * doubled wait after the cull before it. */
static void phase_change_no_faster_than_the_waits(void **state) {
  (void)state;
  enum { H, B };
  struct xr_budget_fn fns[2] = {fn(H, XR_BUDGET_TRACED, 0, -1),
                                fn(B, XR_BUDGET_TRACED, 10000, 1e5)};
  struct event {
    uint64_t tick; /* 10 ms */
    char what;     /* 'c' culled, 'r' readmitted */
  };
  const struct event expected[] = {{0, 'c'},    {300, 'r'},  {500, 'c'}, {1100, 'r'},
                                   {1101, 'c'}, {2301, 'r'}, {2302, 'c'}};
  struct event seen[16];
  size_t n_seen = 0;
  struct xr_budget_inputs in = inputs(BUDGET, 0);
  for (uint64_t tick = 0; tick <= 3000; tick++) {
    in.now_ns = tick * (SEC / 100);
    bool hot = tick < 50 || tick >= 500;
    if (fns[H].state == XR_BUDGET_TRACED) {
      fns[H].calls_per_s = hot ? 600000 : 20000;
      fns[H].mean_ns = hot ? 30 : 500;
    }
    struct eval e;
    decide(fns, 2, &in, &e);
    assert_true(e.r.share_after <= XR_BUDGET_LOW * BUDGET);
    for (size_t i = 0; i < e.r.culled; i++) {
      assert_int_equal(e.cull[i], H);
      assert_true(n_seen < XR_ARRAY_SIZE(seen));
      seen[n_seen++] = (struct event){tick, 'c'};
    }
    for (size_t i = 0; i < e.r.readmitted; i++) {
      assert_int_equal(e.readmit[i], H);
      assert_true(n_seen < XR_ARRAY_SIZE(seen));
      seen[n_seen++] = (struct event){tick, 'r'};
    }
    apply(fns, &e);
  }
  for (size_t i = 0; i < n_seen && i < XR_ARRAY_SIZE(expected); i++) {
    if (seen[i].tick != expected[i].tick || seen[i].what != expected[i].what)
      fail_msg("event %zu: %c at %llu0 ms, expected %c at %llu0 ms", i, seen[i].what,
               (unsigned long long)seen[i].tick, expected[i].what,
               (unsigned long long)expected[i].tick);
  }
  assert_int_equal(n_seen, XR_ARRAY_SIZE(expected));
  assert_int_equal(fns[H].culls, 4);
  assert_int_equal(fns[H].retry_at_ns, 2302 * (SEC / 100) + 8 * SEC);
  assert_int_equal(fns[B].state, XR_BUDGET_TRACED);
  assert_int_equal(fns[B].culls, 0);
}

/* Degenerate inputs give defined results: no division by zero, no NaN. */
static void degenerate_inputs(void **state) {
  (void)state;
  struct eval e;
  /* No function at all, arrays NULL. */
  struct xr_budget_inputs in = inputs(BUDGET, SEC);
  in.cpu_ns_per_s = 0;
  struct xr_budget_result r;
  memset(&r, 0xa5, sizeof r);
  xr_budget_decide(NULL, 0, &in, NULL, NULL, &r);
  assert_exact(r.share_before, 0);
  assert_exact(r.share_after, 0);
  assert_int_equal(r.culled, 0);
  assert_int_equal(r.readmitted, 0);
  assert_false(r.unmet);
  /* ...but the budget's own cost with no CPU measured: more than any budget. */
  in.overhead_ns_per_s = 1e6;
  xr_budget_decide(NULL, 0, &in, NULL, NULL, &r);
  assert_true(isinf(r.share_before) && r.share_before > 0);
  assert_true(r.unmet);

  /* CPU 0, or less than the estimate: infinite share, every cullable
   * function that costs anything goes; with none protected, share 0. */
  const double cpus[] = {0, -1e9, 1000};
  for (size_t c = 0; c < XR_ARRAY_SIZE(cpus); c++) {
    struct xr_budget_fn fns[3] = {
        fn(0, XR_BUDGET_TRACED, 10000, 50),
        fn(1, XR_BUDGET_TRACED, 0, -1), /* costs nothing: stays */
        fn(2, XR_BUDGET_TRACED, 100, -1),
    };
    in = inputs(BUDGET, SEC);
    in.cpu_ns_per_s = cpus[c];
    decide(fns, 3, &in, &e);
    assert_true(isinf(e.r.share_before));
    assert_int_equal(e.r.culled, 2);
    assert_int_equal(e.cull[0], 0);
    assert_int_equal(e.cull[1], 2);
    assert_exact(e.r.share_after, 0);
    assert_false(e.r.unmet);
  }

  /* An event that costs nothing (or less): nothing to cull, even at a
   * budget of 0 or below; a due culled function remembered at 0 returns. */
  const double events[] = {0, -5};
  for (size_t k = 0; k < XR_ARRAY_SIZE(events); k++) {
    struct xr_budget_fn fns[3] = {
        fn(0, XR_BUDGET_TRACED, 1e7, 1),
        fn(1, XR_BUDGET_PROTECTED, 1e7, 1),
        fn(2, XR_BUDGET_CULLED, 0, -1),
    };
    fns[0].cost_per_s = 123; /* from an earlier evaluation: replaced */
    in = inputs(k ? -1 : 0, SEC);
    in.event_ns = events[k];
    decide(fns, 3, &in, &e);
    assert_exact(e.r.share_before, 0);
    assert_int_equal(e.r.culled, 0);
    assert_int_equal(e.r.readmitted, 1);
    assert_int_equal(e.readmit[0], 2);
    assert_exact(fns[0].cost_per_s, 0);
    assert_false(e.r.unmet);
  }

  /* A negative rate counts as none. */
  struct xr_budget_fn neg[1] = {fn(0, XR_BUDGET_TRACED, -1e6, 10)};
  in = inputs(0, SEC);
  decide(neg, 1, &in, &e);
  assert_exact(neg[0].cost_per_s, 0);
  assert_int_equal(e.r.culled, 0);
  assert_exact(e.r.share_after, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hot_tiny_culled_first_slow_never),
      cmocka_unit_test(order_by_duration_then_rate_then_key),
      cmocka_unit_test(estimate_after_culls_exact),
      cmocka_unit_test(own_cost_counts),
      cmocka_unit_test(protected_never_culled_unmet),
      cmocka_unit_test(readmission_at_retry_time_when_it_fits),
      cmocka_unit_test(halving_at_retry_times),
      cmocka_unit_test(cheapest_due_first),
      cmocka_unit_test(wait_doubles_to_the_maximum),
      cmocka_unit_test(phase_change_no_faster_than_the_waits),
      cmocka_unit_test(degenerate_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
