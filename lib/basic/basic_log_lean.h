/* Basic mode's lean handlers (basic_log_lean.c): what the glue
 * (basic_mode.c) installs, the thread state they keep, and the two slow
 * paths they leave by. */
#ifndef XR_BASIC_LOG_LEAN_H
#define XR_BASIC_LOG_LEAN_H

#include "basic/basic_thread.h"
#include "core/base/common.h"
#include "xray/xray_interface.h"

/* This thread's state (initial-exec TLS, zero at thread start). */
XR_HIDDEN extern XR_TLS struct xr_basic_thread xr_basic_tls;

/* The handlers, with the sled's stack pointer and without it
 * (core/dispatch/handlers.h). */
XR_HIDDEN void xr_basic_handle_arg0(int32_t fid, XRayEntryType type, uintptr_t sp);
XR_HIDDEN void xr_basic_handle_arg1(int32_t fid, XRayEntryType type, uint64_t arg,
                                    uintptr_t sp);
XR_HIDDEN void xr_basic_handle_arg0_no_sp(int32_t fid, XRayEntryType type);
XR_HIDDEN void xr_basic_handle_arg1_no_sp(int32_t fid, XRayEntryType type, uint64_t arg);

/* Makes room in t->buf by handing it to the writer: the production value of
 * t->spill. Lean: goes through
 * xr_call_preserving_vectors(xr_basic_spill_slow). */
XR_HIDDEN void xr_basic_spill_lean(struct xr_basic_thread *t);

/* The slow paths, as this file reaches them through
 * xr_call_preserving_vectors: basic_mode.c sets these once, before the
 * first recording generation begins (the epoch's release store publishes
 * them), so that the lean file calls into basic_mode.c without naming it
 * (calls between the two go one way: mode -> lean).
 *
 * xr_basic_prepare_slow(struct xr_basic_prepare *): sets up (or refuses)
 * the calling thread for recording generation `epoch`; called with
 * xr_in_handler and t->busy set. Sets ok when t may record.
 * xr_basic_spill_slow(struct xr_basic_thread *): writes t's buffered records
 * out and empties the buffer (even on failure). */
struct xr_basic_prepare {
  struct xr_basic_thread *t;
  uint32_t epoch;
  bool ok;
};
XR_HIDDEN extern void (*xr_basic_prepare_slow)(void *prepare);
XR_HIDDEN extern void (*xr_basic_spill_slow)(void *thread);

#endif
