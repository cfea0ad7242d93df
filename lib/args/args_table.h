/* The SPEC as the hook reads it (args_table.c): per loaded object, per
 * function, a plan (the values to take at its entry, in SPEC order, and
 * the return value or none), built from the function names.
 *
 * A function several patterns match gets their values merged, in SPEC
 * order, each value once (its first pattern's format): with
 * `*@retval;lookup@arg1/x;look*@arg1,arg2` lookup() keeps arg1/x, arg2
 * and retval/d (uftrace merges its -A and -R specs the same way).
 *
 * One table per SPEC, published with one store (xr_args_current), so an
 * event that loads it once never mixes two SPECs. An object's slice is
 * built when the SPEC is set (for the objects loaded then) or when the
 * object registers (the patching door's fill, before its first patching),
 * under the registry lock either way; a table or slice replaced is freed
 * once no thread can still read it (args_readers.h). */
#ifndef XR_ARGS_TABLE_H
#define XR_ARGS_TABLE_H

#include "args/args_spec.h"
#include "core/base/common.h"
#include "core/dispatch/function_ids.h"

/* What one function's events take. */
struct xr_args_plan {
  uint8_t entries; /* entry[0 .. entries) */
  uint8_t strings; /* of them /s */
  bool has_ret;
  struct xr_args_value_spec entry[XR_ARGS_MAX];
  struct xr_args_value_spec ret;
};

/* One object's plans, in one mapping. */
struct xr_args_slice {
  size_t bytes;        /* of the mapping */
  uint32_t generation; /* of the object's registration it was built for */
  uint32_t count;      /* functions */
  uint32_t planned;    /* functions with a plan */
  /* [function - 1]: the plan's number k (plan[k - 1]; 0: none), and
   * XR_ARGS_LOG_ARGS_SLED when the function's entry is a log-args sled */
  const uint32_t *plan_of;
  const struct xr_args_plan *plan;  /* the distinct plans */
  const uint32_t *hits;             /* [pattern]: functions it matches here */
  struct xr_args_slice *next_retired;
};

#define XR_ARGS_LOG_ARGS_SLED 0x80000000u

/* One SPEC's plans. A table with no pattern stands for "none" once a SPEC
 * was in effect: its slices (of the objects that had plans) only say which
 * functions enter through a log-args sled, so a sled the change has not
 * retargeted yet still sends their events the usual log-args way. */
struct xr_args_table {
  struct xr_args_spec spec;
  /* Written under the registry lock (release), read by the hook (acquire). */
  struct xr_args_slice *slices[XR_MAX_OBJECTS];
};

/* The SPEC in effect; NULL: none. Stored by args_set.c (seq_cst), under
 * the registry lock; loaded once per event between xr_args_read_begin
 * and xr_args_read_end (acquire). */
XR_HIDDEN extern struct xr_args_table *xr_args_current;

/* The plan of function `packed` (a packed id) in t, or NULL; *log_args:
 * its entry is a log-args sled (xray_log_args). */
static inline const struct xr_args_plan *xr_args_plan_of(const struct xr_args_table *t,
                                                         int32_t packed, bool *log_args) {
  const struct xr_args_slice *s =
      __atomic_load_n(&t->slices[xr_id_object(packed)], __ATOMIC_ACQUIRE);
  uint32_t fn = (uint32_t)xr_id_function(packed);
  *log_args = false;
  if (s == NULL || fn == 0 || fn > s->count)
    return NULL;
  uint32_t k = s->plan_of[fn - 1];
  *log_args = (k & XR_ARGS_LOG_ARGS_SLED) != 0;
  k &= ~XR_ARGS_LOG_ARGS_SLED;
  return k != 0 ? &s->plan[k - 1] : NULL;
}

/* A new table for spec (no slice yet), or NULL (no memory: said). */
XR_HIDDEN struct xr_args_table *xr_args_table_new(const struct xr_args_spec *spec);

struct xr_object;
/* Builds (or builds again) object o's slice of t from its names, with the
 * registry lock held, and fills want[0 .. count) with the XR_ARGS_AT_*
 * bits of its functions (want may be NULL). The slice it replaces, and
 * those of objects gone since (dlclose), go to the retired list. */
XR_HIDDEN void xr_args_table_fill(struct xr_args_table *t, const struct xr_object *o,
                                  uint8_t *want, size_t count);

/* The XR_ARGS_AT_* bits of slice s into want[0 .. count) (s NULL: none). */
XR_HIDDEN void xr_args_slice_want(const struct xr_args_slice *s, uint8_t *want, size_t count);

/* t (NULL: nothing) and its slices go to the retired list. */
XR_HIDDEN void xr_args_table_retire(struct xr_args_table *t);

/* Frees what was retired, once no thread can read it (a quiesce); what a
 * thread may still read stays for a later call. Not with the registry
 * lock held by another thread that waits for this one. */
XR_HIDDEN void xr_args_retired_free(void);

/* In a fork child: the retired list is forgotten (a thread that did not
 * survive may have been changing it). */
XR_HIDDEN void xr_args_table_after_fork(void);

#endif
