/* The binary interface between an instrumented shared object and the
 * runtime in the executable, as LLVM 20's xray-dso uses it (compiler-rt
 * 20's xray_dso_init.cpp, xray_interface.cpp and the per-object
 * trampolines): our lib/dso/ and compiler-rt's are interchangeable. */
#ifndef XR_DSO_ABI_H
#define XR_DSO_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/trampoline_numbers.h"

/* The generation of our extension below (docs/core.md, "The shared-object
 * ABI"): 1 added __xray_dso_dispatch, 2 __xray_dso_dense_dispatch, 3
 * __xray_dso_dense_dispatch_sp. Never
 * sent at run time: an object learns what its runtime serves from the weak
 * symbols that resolve, so a change is a new function under a new name (and
 * the next number), and the runtime keeps serving every older one exactly.
 * test/integration/dso/abi.golden holds what each generation fixed. */
#define XR_DSO_ABI_VERSION 3

/* The object's own trampolines, passed by value (32 bytes: in memory). */
struct xr_dso_trampolines {
  void (*entry)(void);
  void (*exit)(void);
  void (*tail_exit)(void);
  void (*log_args)(void);
};

/* Registers the object's xray_instr_map [sleds_begin, sleds_end) and
 * xray_fn_idx (may be NULL). Returns its object id (1..255), or -1 when it
 * cannot be traced (the executable's own map is not valid, no id is free, a
 * bad map). An executable without a map is fine: a host, object 0 empty. */
int32_t __xray_register_dso(const void *sleds_begin, const void *sleds_end,
                            const void *fn_index_begin, const void *fn_index_end,
                            struct xr_dso_trampolines trampolines);

/* Called by the object's destructor. False for id <= 0 or an id that is not
 * a shared object; true otherwise (also when it was already deregistered). */
bool __xray_deregister_dso(int32_t object_id);

/* Our extension (absent from LLVM 20's runtime: callers test the weak
 * symbol): slots[XR_T_CALL_COUNT] (entry, exit, tail exit, log-args, by
 * their XR_T_* numbers: part of this ABI, never renumbered) is the object's
 * copy of the executable's trampoline dispatch; the runtime keeps it in step
 * with the handlers until the object is deregistered, so the object's
 * trampolines jump straight to the right path, as the executable's do. */
void __xray_dso_dispatch(int32_t object_id, void *volatile *slots);

/* Our extension, second step (objects built with a libxray-dso.a that has
 * dense paths call this instead of __xray_dso_dispatch): as
 * __xray_dso_dispatch, plus what a mode that records dense ids (FDR) needs.
 * The runtime writes *id_offset (id base - object << 24) once, keeps
 * handlers[2] in step (the arg0 and arg1 handlers that take dense ids, or
 * NULL, at XR_SLOT_ARG0 and XR_SLOT_ARG1), and points slots[t] at paths[t]
 * while such a mode runs. */
struct xr_dso_dense {
  void *volatile *slots;
  void *volatile *handlers;
  int32_t *id_offset;
  void (*paths[XR_T_CALL_COUNT])(void); /* by XR_T_* number, as slots */
};
void __xray_dso_dense_dispatch(int32_t object_id, const struct xr_dso_dense *dense);

/* Third step (objects whose dense paths pass the sled's stack pointer as
 * the handler's last argument: (dense id, entry type[, argument], sp), as
 * the executable's lean paths do; core/dispatch/handlers.h): as
 * __xray_dso_dense_dispatch, and the runtime keeps handlers that take it
 * in the object's copy. An object calls this when it resolves, else the
 * older ones. */
void __xray_dso_dense_dispatch_sp(int32_t object_id, const struct xr_dso_dense *dense);

#endif
