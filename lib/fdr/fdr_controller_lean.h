/* FDR's lean handlers (fdr_controller_lean.c): one per event kind, run
 * straight from the trampolines; fdr_mode.c installs them. */
#ifndef XR_FDR_CONTROLLER_LEAN_H
#define XR_FDR_CONTROLLER_LEAN_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"
#include "xray/xray_interface.h"

/* The function event handlers, with the sled's stack pointer and, for
 * callers that cannot pass it, without (core/dispatch/handlers.h). */
XR_HIDDEN void xr_fdr_handle_arg0(int32_t id, enum XRayEntryType type, uintptr_t sp);
XR_HIDDEN void xr_fdr_handle_arg1(int32_t id, enum XRayEntryType type, uint64_t arg,
                                  uintptr_t sp);
XR_HIDDEN void xr_fdr_handle_arg0_no_sp(int32_t id, enum XRayEntryType type);
XR_HIDDEN void xr_fdr_handle_arg1_no_sp(int32_t id, enum XRayEntryType type, uint64_t arg);
XR_HIDDEN void xr_fdr_handle_custom(void *data, size_t size);
XR_HIDDEN void xr_fdr_handle_typed(uint16_t type, const void *data,
                                   size_t size);
/* The same plus the slow-call watch (snapshot_if_slower_than_us), whose
 * slow path is xr_fdr_watch_slow (fdr_slow_call.h). */
XR_HIDDEN void xr_fdr_handle_arg0_watch(int32_t id, enum XRayEntryType type, uintptr_t sp);
XR_HIDDEN void xr_fdr_handle_arg1_watch(int32_t id, enum XRayEntryType type, uint64_t arg,
                                        uintptr_t sp);
XR_HIDDEN void xr_fdr_handle_arg0_watch_no_sp(int32_t id, enum XRayEntryType type);
XR_HIDDEN void xr_fdr_handle_arg1_watch_no_sp(int32_t id, enum XRayEntryType type,
                                              uint64_t arg);
/* An entry (exit false) with the values v[0..n), or an exit with none,
 * each followed by the custom event `event` (event_size bytes, 0: none):
 * what the argument sink (fdr_args.c) writes, with a dense id. Not for the
 * trampolines: a full handler calls it. */
XR_HIDDEN void xr_fdr_handle_values(int32_t id, bool exit, const struct xr_arg_value *v,
                                    size_t n, const void *event, size_t event_size,
                                    uintptr_t sp);

#endif
