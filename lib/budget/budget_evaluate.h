/* One evaluation of the overhead budget (budget_evaluate.c): a sampling
 * window, each function's rate and mean duration, the policy, and the
 * culling steps it asks for; and the patching back when the budget is
 * turned off. The budget's thread (budget.c) calls these, one at a time. */
#ifndef XR_BUDGET_EVALUATE_H
#define XR_BUDGET_EVALUATE_H

#include "core/base/common.h"

/* A window's length. */
#define XR_BUDGET_WINDOW_NS 2000000ull
/* How long a culled function's exit sleds stay patched after its entry
 * sleds are unpatched: long enough for the calls running then to end (the
 * policy culls the shortest calls, of ns to us), short enough that few
 * calls begin meanwhile, each an exit without its entry that the modes
 * drop and count. A call still running after it (a thread preempted in
 * it) is closed as unwound by its caller's next event. */
#define XR_BUDGET_EXITS_GRACE_NS 200000ull
/* A function is weighed in a window where at least this many of its calls
 * end: a rate from one call is noise (at most 500 calls a second). */
#define XR_BUDGET_MIN_EXITS 2

/* What the evaluations found, as the status and the exit line show it. */
struct xr_budget_summary {
  double estimate; /* the runtime's cost share after the last culls (at
                      most XR_BUDGET_SHARE_MAX) */
  uint64_t evaluations, measured; /* evaluations; those a window measured */
  uint64_t functions, traced, culled, kept;
  bool unmet;      /* the last measured one: the protected functions alone
                      cost more than the budget */
  double run_cost_ns, run_cpu_ns; /* the runtime's estimated cost and the
                      process's CPU time over the measured intervals: the
                      run's share, which the exit line gives */
};

/* The largest estimate kept: the policy says +INFINITY when the measured
 * cost is the program's whole CPU time or more (an estimate from 2 ms). */
#define XR_BUDGET_SHARE_MAX 1000.0 /* 100000 % */

/* What an evaluation is asked to keep to. */
struct xr_budget_plan {
  double percent;        /* the budget */
  uint64_t interval_ns;  /* the schedule's interval now: the windows' duty cycle */
  const char *keep;      /* the keep patterns ("" none) */
  uint64_t keep_version; /* changes with them */
};

/* At the thread's start: the calibration (once per process), and the
 * start of the first interval whose CPU time the first window is weighed
 * against. */
XR_HIDDEN void xr_budget_evaluation_start(void);

/* One evaluation; updates *sum. True when it changed something (a cull, a
 * readmission, an object that came or went, a step to try again), so the
 * next comes soon. */
XR_HIDDEN bool xr_budget_evaluate(const struct xr_budget_plan *plan,
                                  struct xr_budget_summary *sum);

/* Patches again every function the budget culled (the budget is off) and
 * counts the functions into *sum. False while the patcher is busy with a
 * user's call (try again). */
XR_HIDDEN bool xr_budget_uncull_all(struct xr_budget_summary *sum);

/* CLOCK_MONOTONIC and the CPU clocks, in ns. */
XR_HIDDEN uint64_t xr_budget_clock_ns(int clock_id);

/* A share as the messages write it: "1.8" for 0.018 (tenths of a percent). */
XR_HIDDEN void xr_budget_share_text(double share, char *buf, size_t cap);

#endif
