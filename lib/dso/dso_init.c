/* libxray-dso.a: linked whole into each instrumented shared object. It
 * registers the object's instrumentation map and trampolines with the runtime
 * in the executable when the object is loaded, and deregisters it when it is
 * unloaded. No state beyond the object id; no exported symbol.
 *
 * Every runtime symbol is a weak reference: an instrumented object loaded
 * into a program without the runtime (or whose executable does not export
 * it) loads and runs untraced. */
#include "core/dso_abi.h"

/* The linker defines these for this object's own sections: hidden, so they
 * never bind to the executable's. Weak: an object with no sled links too. */
extern const char __start_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const char __stop_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const char __start_xray_fn_idx[] __attribute__((weak, visibility("hidden")));
extern const char __stop_xray_fn_idx[] __attribute__((weak, visibility("hidden")));

/* This object's trampolines (lib/arch/x86_64/dso_trampolines_x86_64.S). */
extern void xr_dso_entry(void) __attribute__((visibility("hidden")));
extern void xr_dso_exit(void) __attribute__((visibility("hidden")));
extern void xr_dso_tail_exit(void) __attribute__((visibility("hidden")));
extern void xr_dso_log_args(void) __attribute__((visibility("hidden")));

#pragma weak __xray_register_dso
#pragma weak __xray_deregister_dso

static int32_t object_id = -1;

/* Priority 101: before the object's own constructors, after its destructors,
 * so functions they call can be traced. */
__attribute__((constructor(101))) static void
xr_dso_register(void) {
  const void *begin = __start_xray_instr_map, *end = __stop_xray_instr_map;
  if (__xray_register_dso == 0 || begin == 0 || begin == end)
    return;
  struct xr_dso_trampolines t = {xr_dso_entry, xr_dso_exit, xr_dso_tail_exit,
                                 xr_dso_log_args};
  object_id = __xray_register_dso(begin, end, __start_xray_fn_idx, __stop_xray_fn_idx, t);
}

__attribute__((destructor(101))) static void
xr_dso_deregister(void) {
  if (object_id > 0 && __xray_deregister_dso != 0)
    __xray_deregister_dso(object_id);
  object_id = -1;
}
