/* The budget's view of the loaded objects' functions (budget_table.c): one
 * slice per object id, sized by the object's function count, emptied when
 * the object goes and filled afresh when another registration takes its
 * id. The budget's thread fills it each evaluation; the `<log>.culled`
 * writer and the status read it. All under xr_budget_table_lock. */
#ifndef XR_BUDGET_TABLE_H
#define XR_BUDGET_TABLE_H

#include "budget/budget_policy.h"
#include "core/base/common.h"
#include "core/dispatch/function_ids.h"
#include "core/thread/lock.h"

/* A function's state as the budget last saw it: the policy's three, and
 * this one for a function the program has not patched (the budget leaves
 * it out). */
#define XR_BUDGET_UNPATCHED 3

/* What the budget keeps of a function beyond the policy's fields. */
struct xr_budget_note {
  uint64_t culled_at_ns; /* CLOCK_MONOTONIC when the budget culled it; 0: not
                            known (culled before a fork that lost the note) */
  double calls_at_cull;  /* its calls per second then */
  double share_at_cull;  /* its estimated cost then, a share of the CPU time */
  uint8_t state;         /* enum xr_budget_fn_state or XR_BUDGET_UNPATCHED */
  bool exits_due;        /* its entries were culled: its exits go next */
  bool back_due;         /* the policy lets it back: just before the next window */
  bool keep;             /* its name matches the keep patterns */
};

struct xr_budget_slice {
  uint32_t generation;          /* the object's registration (1..); 0: empty */
  size_t count;                 /* its functions */
  struct xr_budget_fn *fns;     /* fns[function - 1]: the policy's view */
  struct xr_budget_note *notes; /* notes[function - 1] */
  uint8_t *states;              /* count bytes: the patcher's XR_FN_* bits */
  uint8_t *select;              /* count bytes: a culling step's selection */
  uint64_t keep_version;        /* the keep patterns its keep bits follow */
};

XR_HIDDEN extern struct xr_budget_slice xr_budget_slices[XR_MAX_OBJECTS];
XR_HIDDEN extern xr_lock xr_budget_table_lock;

/* Follows the registry: a slice per loaded object, emptied for one that
 * went or whose id was registered again. True when a slice changed. Lock
 * held. Memory it cannot get leaves that object out (said once). */
XR_HIDDEN bool xr_budget_table_sync(void);

/* Sets each slice's keep bits from the ';'-separated patterns (version:
 * their version; a slice already at it is left alone). Lock held. */
XR_HIDDEN void xr_budget_table_keep(const char *patterns, uint64_t version);

/* Forgets every slice (a fork child whose parent's thread was changing
 * them): the next sync starts over. The functions stay as the patcher
 * has them; a culled one's note is lost. */
XR_HIDDEN void xr_budget_table_forget(void);

#endif
