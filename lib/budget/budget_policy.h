/* Which functions the budget culls and which it lets back (budget_policy.c):
 * arithmetic only, no state of the process (no clock, no counter: the
 * inputs carry the time and every measurement), so the unit test drives it
 * with made-up rates and durations.
 *
 * The model: an event costs event_ns (the mode's handler as timed in the
 * windows, plus the trampoline as calibrated); a function that is called at
 * calls_per_s costs 2 * event_ns * calls_per_s (an entry and an exit) per
 * second, shown against the program's CPU time per second. What a function
 * shows is its time: a call of mean duration d costs 2 * event_ns / d of
 * what it shows, so the shortest calls are culled first (the most called
 * among equals).
 *
 * The estimate: sum = overhead_ns_per_s + the cost_per_s of every function
 * not culled (traced or protected); its share of the program's own CPU
 * time is sum / (cpu_ns_per_s - sum), 0 when sum <= 0, and +INFINITY (more
 * than any budget) when cpu_ns_per_s <= sum, which covers a cpu_ns_per_s of
 * 0 or less: no division by zero, no NaN. */
#ifndef XR_BUDGET_POLICY_H
#define XR_BUDGET_POLICY_H

#include "core/base/common.h"

enum xr_budget_fn_state {
  XR_BUDGET_TRACED = 0,    /* patched, the budget may cull it */
  XR_BUDGET_CULLED = 1,    /* the budget unpatched it */
  XR_BUDGET_PROTECTED = 2, /* patched and never culled: chosen by exact name or id,
                              or xray_budget_keep (any other value is taken as this) */
};

/* One function as the policy weighs it. The caller fills the inputs each
 * evaluation (state too: the policy never writes it, the caller sets it
 * from what the patch door did with cull[] and readmit[]); the policy's
 * fields are the policy's (zero them once). The inputs are finite numbers;
 * negative rates count as 0. */
struct xr_budget_fn {
  /* inputs */
  uint32_t key;          /* the caller's index, copied to the output lists */
  uint8_t state;         /* enum xr_budget_fn_state */
  double calls_per_s;    /* calls per second of wall time in the last window
                            (not read when culled: no events) */
  double mean_ns;        /* mean duration of its calls timed in the window;
                            < 0 when none was timed (calls longer than the
                            window, or not seen); not read when culled */
  /* the policy's own */
  double cost_per_s;     /* CPU ns per second it costs: 2 * event_ns *
                            calls_per_s, set at each evaluation it is traced or
                            protected; kept while culled (halved at each retry
                            time where it does not fit) */
  uint64_t retry_at_ns;  /* culled: not let back before this time */
  uint32_t culls;        /* times culled: each doubles the wait before a retry */
};

struct xr_budget_inputs {
  double budget;          /* the target share: 0.02 for xray_budget=2 */
  double event_ns;        /* what one event costs (see above); <= 0: nothing */
  double cpu_ns_per_s;    /* the program's CPU ns per second of wall time,
                             the runtime's own cost included */
  double overhead_ns_per_s; /* the budget's own cost per second (windows):
                               counted in the estimate, never culled */
  uint64_t now_ns;        /* CLOCK_MONOTONIC, for retry times */
};

struct xr_budget_result {
  double share_before;  /* estimated cost share with the new costs, as found */
  double share_after;   /* after the culls and readmissions below */
  size_t culled, readmitted;
  bool unmet;           /* share_after > budget: even with every cullable
                           function culled, the protected ones and the
                           budget's own cost alone are more than the budget */
};

/* Decides one evaluation: writes the keys of the functions to cull to
 * cull[0 .. out->culled) and of those to let back to
 * readmit[0 .. out->readmitted) (each with room for n: the rest of both is
 * scratch, overwritten), and updates each function's own fields. fns is
 * only read and its policy fields written, never reordered; n is at most
 * UINT32_MAX (the scratch holds indices); with n == 0 the arrays may be
 * NULL. No allocation, no lock; O(n log n).
 *
 * Culling, only when the estimate is above the budget: in the culling
 * order until the estimate is at or under XR_BUDGET_LOW of the budget (or
 * no traced function is left). The order: functions with a timed mean
 * duration (mean_ns >= 0) by mean_ns ascending, then those without (calls
 * longer than the window: the long calls, cheapest for what they show);
 * ties by calls_per_s descending, then key ascending (then index: fully
 * deterministic). A function whose cost is 0 (not called in the window) is
 * never culled: that saves nothing. Each cull counts in culls and sets
 * retry_at_ns = now_ns + XR_BUDGET_RETRY_FIRST_NS * 2^(culls - 1), held to
 * XR_BUDGET_RETRY_MAX_NS.
 *
 * Readmission, after the culls, of the culled functions whose retry time
 * has come (now_ns >= retry_at_ns), cheapest remembered cost first (ties
 * by key, then index): each comes back while the estimate with its
 * remembered cost stays at or under XR_BUDGET_LOW of the budget; one that
 * does not fit has its remembered cost halved and waits again (its wait,
 * not doubled: only a cull doubles it). So after a phase change every
 * culled function is tried again in time, and one that is still costly is
 * culled again at the next evaluation that measures it, ever more rarely:
 * between the budget and XR_BUDGET_LOW of it nothing moves (hysteresis),
 * and no function is let back sooner than its wait after a cull. */
#define XR_BUDGET_LOW 0.75
#define XR_BUDGET_RETRY_FIRST_NS 1000000000ull
#define XR_BUDGET_RETRY_MAX_NS 64000000000ull
XR_HIDDEN void xr_budget_decide(struct xr_budget_fn *fns, size_t n,
                                const struct xr_budget_inputs *in, uint32_t *cull,
                                uint32_t *readmit, struct xr_budget_result *out);

#endif
