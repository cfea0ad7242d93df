/* XRay extension: the overhead budget.
 *
 * With a budget of P percent, the runtime keeps its own cost at or under P
 * percent of the program's CPU time by itself: a thread of its own
 * ("xray-budget") measures, at intervals, what each patched function costs
 * in the running built-in mode (basic, FDR or profiling), and unpatches
 * ("culls") the functions that cost most for what they show, the shortest
 * calls first; a culled function is patched again later when the budget
 * allows it. Functions chosen by exact name or id (xray_patch= without
 * wildcards, __xray_patch_function, xrayctl patch NAME) and those matching
 * the keep patterns are never culled. Each log then has a `<log>.culled`
 * beside it. The same as XRAY_OPTIONS="xray_budget=P" and `xrayctl budget
 * PID P`; docs/modes.md, "Keeping the cost bounded".
 *
 * Cold path: not async-signal-safe, do not call from a handler.
 *
 * Not part of compiler-rt's runtime. Valid C11 and C++11 and later.
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_BUDGET_H
#define XRAY_XRAY_BUDGET_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the functions below return. */
enum XRayBudgetResult {
  XRAY_BUDGET_OK = 0,
  /* The runtime is not initialised (no instrumentation map yet). */
  XRAY_BUDGET_NOT_INITIALIZED = -1,
  /* A percent outside 0 .. 100 (or not a number), a NULL pointer, or
   * patterns longer than 4095 bytes. Nothing changed. */
  XRAY_BUDGET_INVALID = -2,
  /* The budget's thread could not be started (a message says why); the
   * budget is off. */
  XRAY_BUDGET_NO_THREAD = -3
};
#ifndef __cplusplus
typedef enum XRayBudgetResult XRayBudgetResult;
#endif

/* Sets the budget to `percent` of the program's CPU time (e.g. 2 or 0.5),
 * starting its thread when needed; 0 turns it off, and every function it
 * culled is patched again before the call returns (unless a user's
 * patching call keeps the patcher busy for seconds; then its thread ends
 * the work). Returns XRAY_BUDGET_OK, NOT_INITIALIZED, INVALID or
 * NO_THREAD. */
int __xray_budget_set(double percent);

/* Replaces the patterns of the functions the budget never culls (';'-
 * separated globs matched against names, as xray_patch=; "" or NULL: none
 * beyond those chosen by exact name or id), as XRAY_OPTIONS'
 * xray_budget_keep does at start. A culled function that now matches is
 * patched again at the budget's next evaluation. Returns XRAY_BUDGET_OK or
 * INVALID (longer than 4095 bytes). */
int __xray_budget_keep(const char *patterns);

/* The budget as it stands. Counts are of the loaded objects' functions
 * the budget weighs: patched by the program (traced) or unpatched by the
 * budget (culled). */
struct XRayBudgetStatus {
  double percent;           /* the budget asked for; 0: off */
  double estimated_percent; /* the runtime's cost as the last evaluation
                               estimated it, after its culls, as a percent
                               of the program's own CPU time (at most
                               100000: a cost that measured the whole CPU
                               time or more) */
  uint64_t evaluations;     /* evaluations done, a sampling window each
                               (which measures nothing while no built-in
                               mode records) */
  uint64_t functions;       /* traced + culled */
  uint64_t traced;          /* patched now */
  uint64_t culled;          /* unpatched by the budget now */
  uint64_t kept;            /* of traced: never culled (chosen by exact
                               name or id, or xray_budget_keep) */
  int unmet;                /* 1: the functions never culled alone cost
                               more than the budget (said once) */
  int running;              /* 1: the budget's thread runs */
};
#ifndef __cplusplus
typedef struct XRayBudgetStatus XRayBudgetStatus;
#endif

/* Fills *out. Returns XRAY_BUDGET_OK, or INVALID for a NULL out. */
int __xray_budget_status(struct XRayBudgetStatus *out);

#ifdef __cplusplus
}
#endif

#endif
