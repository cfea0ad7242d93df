/* The tables the hot path reads (hot_tables.c owns them). */
#ifndef XR_HOT_TABLES_H
#define XR_HOT_TABLES_H

#include "arch/arch.h"
#include "arch/trampoline_numbers.h"
#include "core/base/common.h"
#include "core/dispatch/function_ids.h"

/* The handler slots, numbered XR_SLOT_* (arch/trampoline_numbers.h, read by
 * the trampolines too): arg0, arg1, custom event, typed event. Read by
 * assembly: keep the layout (two arrays of XR_SLOT_COUNT pointers).
 * Written by handlers.c only. */
XR_HIDDEN extern void *volatile xr_handler_full[XR_SLOT_COUNT];
XR_HIDDEN extern void *volatile xr_handler_lean[XR_SLOT_COUNT];

/* The dense handlers (arg0, arg1), NULL when none is installed, in their
 * two forms (handlers.h, "The sled's stack pointer"): the ones that take
 * the sled's stack pointer (the shared objects' dense paths that pass it),
 * and the ones that do not, which LLVM 20's objects reach through the
 * wrappers of dense_ids_lean.c. Written by handlers.c only. */
XR_HIDDEN extern void *volatile xr_dense_handlers[2];
XR_HIDDEN extern void *volatile xr_dense_handlers_no_sp[2];

/* Each object's dense id base (function_ids.h), indexed by object id
 * (XR_NO_ID_BASE when none): written by the registry
 * (core/objects/objects.c), read without its lock by dense_ids_lean.c. */
XR_HIDDEN extern uint32_t xr_objects_id_base[XR_MAX_OBJECTS];

/* The dense id of packed id `packed`, from its object's base above; -1
 * when the object has none (its events are not traced by a dense mode). */
static inline int32_t xr_dense_id(int32_t packed) {
  uint32_t base = __atomic_load_n(&xr_objects_id_base[xr_id_object(packed)], __ATOMIC_RELAXED);
  return base == XR_NO_ID_BASE ? -1 : (int32_t)(base + (uint32_t)xr_id_function(packed));
}

/* Argument capture (lib/args). The sleds of a function with a SPEC call
 * the port's argument trampolines instead of the usual ones
 * (arch/arch.h, xr_args_entry_trampoline and xr_args_exit_trampoline):
 * they keep every register the full paths keep, store the registers that
 * hold arguments (entry) or results (exit) here, and call xr_args_hook
 * with them, when it is set (set once by lib/args, never cleared: a
 * thread may be on its way to it).
 *   entry (type XR_T_ENTRY, from an entry or log-args sled): gpr[0..7] the
 *     integer argument registers in ABI order (x86-64: rdi rsi rdx rcx r8
 *     r9, gpr[6..7] 0; AArch64: x0-x7), fpr[0..7] the low 64 bits of the
 *     vector argument registers (xmm0-7; v0-v7);
 *   exit (type XR_T_EXIT): gpr[0..1] rax rdx (x0 x1), fpr[0..1] the low 64
 *     bits of xmm0 xmm1 (v0 v1), the rest 0;
 *   sp: the sled's stack pointer (handlers.h, "The sled's stack pointer").
 * The id is the sled's packed id. The hook runs as a full handler does:
 * it may use any register, vector and x87 ones included. */
struct xr_arg_regs {
  uint64_t gpr[8];
  uint64_t fpr[8];
  uintptr_t sp;
};
/* What the SPEC of this port may name (lib/args): argN for N in 1 ..
 * XR_ARG_INT_REGS, fpargN for N in 1 .. XR_ARG_FP_REGS; the port's name
 * in its messages. */
#define XR_ARG_INT_REGS XR_ARCH_INT_ARG_REGS
#define XR_ARG_FP_REGS 8
#define XR_ARG_PORT_NAME XR_ARCH_NAME
typedef void (*xr_args_hook_fn)(int32_t packed_id, int type, const struct xr_arg_regs *r);
XR_HIDDEN extern xr_args_hook_fn volatile xr_args_hook;

#endif
