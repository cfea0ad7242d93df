/* libxray-dso.a: linked whole into each instrumented shared object. It
 * registers the object's instrumentation map and trampolines with the runtime
 * in the executable when the object is loaded, and deregisters it when it is
 * unloaded. No state beyond the object id; no exported symbol.
 *
 * Every runtime symbol is a weak reference: an instrumented object loaded
 * into a program without the runtime (or whose executable does not export
 * it) loads and runs untraced. */
#include "core/dispatch/dso_abi.h"

/* The linker defines these for this object's own sections: hidden, so they
 * never bind to the executable's. Weak: an object with no sled links too. */
extern const char __start_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const char __stop_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const char __start_xray_fn_idx[] __attribute__((weak, visibility("hidden")));
extern const char __stop_xray_fn_idx[] __attribute__((weak, visibility("hidden")));

/* This object's trampolines (lib/arch/<cpu>/dso_trampolines_<cpu>.S). */
extern void xr_dso_entry(void) __attribute__((visibility("hidden")));
extern void xr_dso_exit(void) __attribute__((visibility("hidden")));
extern void xr_dso_tail_exit(void) __attribute__((visibility("hidden")));
extern void xr_dso_log_args(void) __attribute__((visibility("hidden")));

/* The executable's trampolines, where this object's trampolines jump until
 * the runtime hands them its dispatch (below). */
extern void __xray_FunctionEntry(void) __attribute__((weak));
extern void __xray_FunctionExit(void) __attribute__((weak));
extern void __xray_FunctionTailExit(void) __attribute__((weak));
extern void __xray_ArgLoggerEntry(void) __attribute__((weak));

#pragma weak __xray_register_dso
#pragma weak __xray_deregister_dso
#pragma weak __xray_dso_dispatch
#pragma weak __xray_dso_dense_dispatch
#pragma weak __xray_dso_dense_dispatch_sp

/* This object's copies of the lean paths for modes that take dense ids
 * (same file as its trampolines). */
extern void xr_dso_entry_dense(void) __attribute__((visibility("hidden")));
extern void xr_dso_exit_dense(void) __attribute__((visibility("hidden")));
extern void xr_dso_tail_exit_dense(void) __attribute__((visibility("hidden")));
extern void xr_dso_log_args_dense(void) __attribute__((visibility("hidden")));

/* Where this object's trampolines jump (entry, exit, tail exit, log-args):
 * our runtime keeps the paths its own trampolines would take here
 * (__xray_dso_dispatch), so an event costs what one from the executable
 * does; a runtime without that call leaves the executable's trampolines. */
__attribute__((visibility("hidden"))) void *volatile xr_dso_dispatch_slots[4];
/* What the dense paths call (arg0, arg1 handlers) and add to the packed id;
 * written by the runtime (__xray_dso_dense_dispatch). */
__attribute__((visibility("hidden"))) void *volatile xr_dso_dense_handlers[2];
__attribute__((visibility("hidden"))) int32_t xr_dso_id_offset;

static int32_t object_id = -1;

/* Priority 101: before the object's own constructors, after its destructors,
 * so functions they call can be traced. */
__attribute__((constructor(101))) static void
xr_dso_register(void) {
  const void *begin = __start_xray_instr_map, *end = __stop_xray_instr_map;
  if (__xray_register_dso == 0 || begin == 0 || begin == end)
    return;
  /* Registration patches the object before its dispatch copy is given:
   * meanwhile a runtime with dense paths finds them here with no handler
   * (events dropped, never a packed id to a mode that wants dense ones);
   * any other runtime, its own trampolines. */
  bool dense = __xray_dso_dense_dispatch_sp != 0 || __xray_dso_dense_dispatch != 0;
  xr_dso_dispatch_slots[0] = dense ? (void *)xr_dso_entry_dense : (void *)__xray_FunctionEntry;
  xr_dso_dispatch_slots[1] = dense ? (void *)xr_dso_exit_dense : (void *)__xray_FunctionExit;
  xr_dso_dispatch_slots[2] =
      dense ? (void *)xr_dso_tail_exit_dense : (void *)__xray_FunctionTailExit;
  xr_dso_dispatch_slots[3] = dense ? (void *)xr_dso_log_args_dense : (void *)__xray_ArgLoggerEntry;
  struct xr_dso_trampolines t = {xr_dso_entry, xr_dso_exit, xr_dso_tail_exit,
                                 xr_dso_log_args};
  object_id = __xray_register_dso(begin, end, __start_xray_fn_idx, __stop_xray_fn_idx, t);
  if (object_id > 0 && dense) {
    struct xr_dso_dense d = {xr_dso_dispatch_slots, xr_dso_dense_handlers, &xr_dso_id_offset,
                             {xr_dso_entry_dense, xr_dso_exit_dense, xr_dso_tail_exit_dense,
                              xr_dso_log_args_dense}};
    /* Our dense paths pass the stack pointer; a runtime of generation 2
     * gets them as well, and its handlers ignore the extra argument. */
    if (__xray_dso_dense_dispatch_sp != 0)
      __xray_dso_dense_dispatch_sp(object_id, &d);
    else
      __xray_dso_dense_dispatch(object_id, &d);
  } else if (object_id > 0 && __xray_dso_dispatch != 0) {
    __xray_dso_dispatch(object_id, xr_dso_dispatch_slots);
  }
}

__attribute__((destructor(101))) static void
xr_dso_deregister(void) {
  if (object_id > 0 && __xray_deregister_dso != 0)
    __xray_deregister_dso(object_id);
  object_id = -1;
}
