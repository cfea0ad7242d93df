/* Where captured argument values go: the running mode's sink. lib/args
 * (above core and the modes) captures a call's values when a function with
 * a SPEC enters or exits, then hands them to the sink of the mode that
 * records, which writes the event and its values together (so a value is
 * never separated from its call). A mode that records them (basic, FDR)
 * sets its sink when it starts recording and clears it when it stops;
 * with no sink (profiling, a user's handler, no mode) lib/args calls the
 * installed handler as the usual trampoline would, and the values go
 * nowhere. */
#ifndef XR_ARGS_SINK_H
#define XR_ARGS_SINK_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"

struct xr_args_sink {
  /* An entry of function packed_id (the sled's packed id: a mode that
   * records dense ids converts it) with its values (c->count may be 0),
   * sp the sled's stack pointer (core/dispatch/handlers.h). Writes the
   * entry event and the values, or neither. Runs as a full handler: any C
   * code, but the mode's own per-event rules (its re-entrancy guard, its
   * on/off word) are its business. */
  void (*entry)(int32_t packed_id, const struct xr_arg_call *c, uintptr_t sp);
  /* An exit (XR_T_EXIT) with its return value (c->count 0 or 1). */
  void (*exit)(int32_t packed_id, const struct xr_arg_call *c, uintptr_t sp);
};

/* Sets the sink (NULL: none), release-ordered: the sink's state must be
 * ready before. A mode clears it before it quiesces its handlers, so a
 * sink call in flight is covered by the mode's own quiesce protocol. */
XR_HIDDEN void xr_args_sink_set(const struct xr_args_sink *sink);
/* The sink now (acquire), or NULL. */
XR_HIDDEN const struct xr_args_sink *xr_args_sink_get(void);

#endif
