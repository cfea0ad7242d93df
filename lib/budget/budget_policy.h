/* Which functions the budget culls and which it lets back (budget_policy.c):
 * arithmetic only, no state of the process, so the unit test drives it with
 * made-up rates and durations.
 *
 * The model: an event costs event_ns (the mode's handler as timed in the
 * windows, plus the trampoline as calibrated); a function that is called at
 * calls_per_s costs 2 * event_ns * calls_per_s (an entry and an exit) per
 * second, shown against the program's CPU time per second. What a function
 * shows is its time: a call of mean duration d costs 2 * event_ns / d of
 * what it shows, so the shortest calls are culled first (the most called
 * among equals). */
#ifndef XR_BUDGET_POLICY_H
#define XR_BUDGET_POLICY_H

#include "core/base/common.h"

enum xr_budget_fn_state {
  XR_BUDGET_TRACED = 0,    /* patched, the budget may cull it */
  XR_BUDGET_CULLED = 1,    /* the budget unpatched it */
  XR_BUDGET_PROTECTED = 2, /* patched and never culled: chosen by exact name or id,
                              or xray_budget_keep */
};

/* One function as the policy weighs it. The caller fills the inputs each
 * evaluation; the policy's fields are the policy's (zero them once). */
struct xr_budget_fn {
  /* inputs */
  uint32_t key;          /* the caller's index, copied to the output lists */
  uint8_t state;         /* enum xr_budget_fn_state */
  double calls_per_s;    /* calls per second of wall time in the last window
                            (0 when culled: no events) */
  double mean_ns;        /* mean duration of its calls timed in the window;
                            < 0 when none was timed (calls longer than the
                            window, or not seen) */
  /* the policy's own */
  double cost_per_s;     /* CPU ns per second it cost when last traced (kept while culled) */
  uint64_t retry_at_ns;  /* culled: not let back before this time */
  uint32_t culls;        /* times culled: each doubles the wait before a retry */
};

struct xr_budget_inputs {
  double budget;          /* the target share: 0.02 for xray_budget=2 */
  double event_ns;        /* what one event costs (see above) */
  double cpu_ns_per_s;    /* the program's CPU ns per second of wall time,
                             the runtime's own cost included */
  double overhead_ns_per_s; /* the budget's own cost per second (windows) */
  uint64_t now_ns;        /* CLOCK_MONOTONIC, for retry times */
};

struct xr_budget_result {
  double share_before;  /* estimated cost share of the traced functions, as found */
  double share_after;   /* after the culls and retries below */
  size_t culled, readmitted;
  bool unmet;           /* even with every cullable function culled, the
                           protected ones alone cost more than the budget */
};

/* Decides one evaluation: writes the keys of the functions to cull to
 * cull[] and of those to let back to readmit[] (each with room for n), and
 * updates each function's own fields. Hysteresis: culls bring the estimate
 * down to XR_BUDGET_LOW of the budget when it is above the budget; culled
 * functions come back only while the estimate with them stays under
 * XR_BUDGET_LOW, not before their retry time, which doubles with each cull
 * (XR_BUDGET_RETRY_FIRST_NS .. XR_BUDGET_RETRY_MAX_NS); at a retry time
 * where it does not fit, its remembered cost halves and the wait starts
 * again, so after a phase change every culled function is tried again in
 * time, and one that is still costly is culled again, ever more rarely. */
#define XR_BUDGET_LOW 0.75
#define XR_BUDGET_RETRY_FIRST_NS 1000000000ull
#define XR_BUDGET_RETRY_MAX_NS 64000000000ull
XR_HIDDEN void xr_budget_decide(struct xr_budget_fn *fns, size_t n,
                                const struct xr_budget_inputs *in, uint32_t *cull,
                                uint32_t *readmit, struct xr_budget_result *out);

#endif
