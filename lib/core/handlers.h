/* Handler slots read by the trampolines (lib/core/trampoline_x86_64.S).
 *
 * Each event kind has two slots: `full` handlers (users' functions) run with
 * every caller-saved register preserved, vector registers included; `lean`
 * handlers (the built-in modes, compiled with -mgeneral-regs-only, calling no
 * libc string functions on their hot path) run with only general registers
 * saved. At most one of the two is non-NULL in steady state. The trampolines
 * load each slot once with a plain (atomic, acquire on x86) 8-byte load. */
#ifndef XR_HANDLERS_H
#define XR_HANDLERS_H

#include "common.h"

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

/* Installs fn (NULL removes) in slot; flags as above. Release ordering: a
 * handler's state must be ready before it is installed. */
XR_HIDDEN void xr_handler_install(enum xr_slot slot, void *fn, unsigned flags);

/* Calls fn(arg) with every vector register (xmm/ymm/zmm 0-31, k0-7 when
 * enabled) and the x87 state saved and restored around it. Lean handlers use it for slow paths
 * that call libc (write, mmap, snprintf) so they stay lean. Implemented in
 * trampoline_x86_64.S. */
XR_HIDDEN void xr_call_preserving_vectors(void (*fn)(void *), void *arg);

/* Each trampoline starts with an indirect jump through its entry of
 * xr_trampoline_dispatch to one of its three paths in xr_trampoline_paths
 * (no handler / lean / full), so that the empty path touches no register and
 * no flag. xr_handler_install keeps the pointers in step with the slots. */
enum xr_trampoline {
  XR_T_ENTRY, XR_T_TAIL, XR_T_EXIT, XR_T_ARG, XR_T_CUSTOM, XR_T_TYPED,
  XR_T_COUNT
};
/* XR_PATH_FULL_PUSHF: the full path saving rflags with pushfq/popfq, for
 * CPUs without LAHF/SAHF in 64-bit mode (xr_cpu_lahf_sahf == 0).
 * XR_PATH_FULL_ZMM(_PUSHF): the full path when XCR0 enables AVX-512 state
 * (xr_vector_avx512): zmm instead of ymm, XSAVE in the event trampolines.
 * Neither is a choice of its own: refresh_dispatch (handlers.c) picks them
 * for XR_PATH_FULL from the CPU bits. */
enum xr_path {
  XR_PATH_NONE, XR_PATH_LEAN, XR_PATH_FULL, XR_PATH_FULL_PUSHF,
  XR_PATH_FULL_ZMM, XR_PATH_FULL_ZMM_PUSHF, XR_PATH_COUNT
};
XR_HIDDEN extern void *volatile xr_trampoline_dispatch[XR_T_COUNT];
XR_HIDDEN extern void *const xr_trampoline_paths[XR_T_COUNT][XR_PATH_COUNT];

/* Vector state the trampolines save, decided once by xr_vector_state_init()
 * (lib/core/cpu_x86_64.c; idempotent) before any handler can run:
 * xr_vector_avx = 1 when the CPU has AVX and the OS enabled ymm state (cpuid +
 * xgetbv): full paths then save whole ymm registers. xr_xsave_size/mask
 * describe the XSAVE area of xr_call_preserving_vectors (size 0: use FXSAVE).
 * Read by assembly. */
XR_HIDDEN extern uint8_t xr_vector_avx;
/* 1 when the CPU has AVX-512F and XCR0 enables the opmask, ZMM_Hi256 and
 * Hi16_ZMM state (and XSAVE covers it: xr_xsave_size != 0): the full paths
 * are then the XR_PATH_FULL_ZMM ones. */
XR_HIDDEN extern uint8_t xr_vector_avx512;
/* 1 when the CPU has LAHF/SAHF in 64-bit mode (CPUID 0x80000001 ECX bit 0):
 * the full entry/exit paths then keep the status flags with lahf/sahf, else
 * with pushfq/popfq (also set by xr_vector_state_init). */
XR_HIDDEN extern uint8_t xr_cpu_lahf_sahf;
XR_HIDDEN extern uint32_t xr_xsave_size;
XR_HIDDEN extern uint64_t xr_xsave_mask;
XR_HIDDEN void xr_vector_state_init(void);

#endif
