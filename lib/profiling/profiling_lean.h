/* Profiling's lean handler and the trie growth it reaches without a vector
 * save (profiling_lean.c): profiling_mode.c installs them. */
#ifndef XR_PROFILING_LEAN_H
#define XR_PROFILING_LEAN_H

#include "core/base/common.h"
#include "profiling/call_trie.h"
#include "xray/xray_interface.h"

/* The handler, with the sled's stack pointer and without it
 * (core/dispatch/handlers.h). */
XR_HIDDEN void xr_prof_handle_arg0(int32_t id, XRayEntryType type, uintptr_t sp);
XR_HIDDEN void xr_prof_handle_arg0_no_sp(int32_t id, XRayEntryType type);
/* Lean arena growth for the handlers' tries. */
XR_HIDDEN int xr_prof_lean_grow(struct xr_trie *t);

#endif
