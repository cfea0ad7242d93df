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

#include "common.h"
#include "arch/arch.h"

enum xr_slot {
  XR_SLOT_ARG0 = 0,   /* void (*)(int32_t id, enum XRayEntryType) */
  XR_SLOT_ARG1 = 1,   /* void (*)(int32_t id, enum XRayEntryType, uint64_t) */
  XR_SLOT_CUSTOM = 2, /* void (*)(void *, size_t) */
  XR_SLOT_TYPED = 3,  /* void (*)(uint16_t, const void *, size_t) */
  XR_SLOT_COUNT = 4
};

/* Read by assembly: keep the layout (two arrays of XR_SLOT_COUNT pointers). */
XR_HIDDEN extern void *volatile xr_handler_full[XR_SLOT_COUNT];
XR_HIDDEN extern void *volatile xr_handler_lean[XR_SLOT_COUNT];

#define XR_HANDLER_LEAN 1u /* handler touches no vector/x87 register */

/* Shared object `id`'s copy of the entry/exit/tail/log-args dispatch
 * (dso_abi.h; NULL: forget it, the object is going away). Filled now and
 * kept in step by every install; after it returns with NULL no store
 * reaches the old slots. */
XR_HIDDEN void xr_handler_dso_dispatch(int32_t id, void *volatile *slots);

/* Installs fn (NULL removes) in slot; flags as above. Release ordering: a
 * handler's state must be ready before it is installed. */
XR_HIDDEN void xr_handler_install(enum xr_slot slot, void *fn, unsigned flags);

#endif
