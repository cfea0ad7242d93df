/* Handler slots read by the trampolines (lib/arch/<cpu>/trampoline_*.S).
 *
 * Each event kind has two slots: `full` handlers (users' functions) run with
 * every caller-saved register preserved, vector registers included; `lean`
 * handlers (the built-in modes, compiled with -mgeneral-regs-only, calling no
 * libc string functions on their hot path) run with only general registers
 * saved. At most one of the two is non-NULL in steady state. The trampolines
 * load each slot once with one acquire (on x86-64: plain) 8-byte load. */
#ifndef XR_HANDLERS_H
#define XR_HANDLERS_H

#include "core/base/common.h"
#include "arch/arch.h"
#include "core/dispatch/dso_abi.h"

/* The slots themselves are hot_tables.h's. */

#define XR_HANDLER_LEAN 1u /* handler touches no vector/x87 register */
/* With XR_HANDLER_LEAN, arg0/arg1 only: the handler takes dense ids (id
 * base + function, function_ids.h) instead of packed ones. Shared objects reach it
 * through their own dense paths (dso_abi.h), LLVM 20's objects through a
 * wrapper that looks their base up; an object with neither (a libxray-dso.a
 * without dense paths, or no id base) is not traced while it is installed. */
#define XR_HANDLER_DENSE 2u

/* The sled's stack pointer. The lean paths of our trampolines (and the
 * dense paths of shared objects of generation 3, dso_abi.h) call a lean
 * arg0 handler with (id, type, sp) and a lean arg1 handler with (id, type,
 * arg, sp): sp is the stack pointer the instrumented function had at the
 * sled, the same at a call's entry, exit and tail exit (x86-64: the
 * address of its return address; AArch64: sp at its first instruction),
 * and lower for a call nested in it. The modes tell from it which open
 * calls an exception or longjmp left. Callers that cannot pass it (LLVM
 * 20's per-object trampolines, dense paths of generation 2) call the
 * handler's twin without it, given at install. */

/* Shared object `id`'s copy of the entry/exit/tail/log-args dispatch
 * (dso_abi.h; slots NULL: forget it, the object is going away), with its
 * dense paths and their handler copy (`dense`, NULL when the object has
 * none); `dense_sp`: those paths pass the sled's stack pointer. Filled now
 * and kept in step by every install; after it returns with slots NULL no
 * store reaches the old slots. */
XR_HIDDEN void xr_handler_dso_dispatch(int32_t id, void *volatile *slots,
                                       const struct xr_dso_dense *dense, bool dense_sp);

/* Installs fn (NULL removes) in slot; flags as above. Release ordering: a
 * handler's state must be ready before it is installed. A lean arg0/arg1
 * handler installed here is its own twin without the stack pointer (it
 * must not read it). */
XR_HIDDEN void xr_handler_install(unsigned slot, void *fn, unsigned flags);

/* Installs a lean arg0 or arg1 handler `fn` that takes the sled's stack
 * pointer, with `fn_no_sp`, its twin for callers that cannot pass it (both
 * NULL: removes); flags as xr_handler_install's (XR_HANDLER_LEAN implied). */
XR_HIDDEN void xr_handler_install_lean(unsigned slot, void *fn, void *fn_no_sp,
                                       unsigned flags);

/* A lean arg0/arg1 handler as installed: the handler, its twin without the
 * stack pointer, and its XR_HANDLER_* flags. */
struct xr_lean_handler {
  void *fn, *fn_no_sp;
  unsigned flags;
};

/* The lean handler in slot now (fn NULL when none). */
XR_HIDDEN void xr_handler_lean_now(unsigned slot, struct xr_lean_handler *out);

/* Replaces slot's lean handler `from` by `to`, keeping from's flags (to's
 * are ignored), under the install lock, with every copy (shared objects'
 * dispatch and dense handlers) kept in step as xr_handler_install does.
 * False, and nothing changed, when the slot's lean handler is not from->fn
 * now (installed or removed meanwhile). The overhead budget's windows wrap
 * the mode's handler this way (lib/budget/budget_window.c). */
XR_HIDDEN bool xr_handler_swap_lean(unsigned slot, const struct xr_lean_handler *from,
                                    const struct xr_lean_handler *to);

/* Removes slot's lean handler when the last install put fn there, whether
 * fn is in the slot now or a stand-in xr_handler_swap_lean put there for
 * it: how a mode removes its own handler and no other's. */
XR_HIDDEN void xr_handler_remove_lean_if(unsigned slot, void *fn);

/* The port's probe of one event's cost beyond its handler (arch/arch.h:
 * xr_arch_probe_events, xr_arch_probe_bare), for the overhead budget's
 * calibration above core. */
static inline void xr_handler_probe_events(uint64_t n) { xr_arch_probe_events(n); }
static inline void xr_handler_probe_bare(uint64_t n) { xr_arch_probe_bare(n); }

#endif
