/* A shared object's own trampolines (libxray-dso.a), one per call-sled kind.
 *
 * A patched sled is `call rel32`: it cannot reach the executable's
 * trampolines from a shared object loaded more than 2 GiB away. So each
 * object carries these four, hidden, and each is one indirect jump through
 * the object's own slot of xr_dso_dispatch_slots (lib/dso/dso_init.c). The
 * runtime keeps in each slot the path (none, lean, full) that the
 * executable's trampoline of the same kind would jump to, so an event from
 * the object takes the very same path as one from the executable, for the
 * same cost: one indirect jump, then the path. Before the runtime fills
 * the slots they hold the dense paths below with no handler (with a
 * runtime that has no dense paths, the executable's trampolines). The jump reads memory only: no register and no flag
 * changes, so the path starts in exactly the state a sled of the executable
 * gives it (r10d = packed id, the sled's return address on the stack).
 *
 * Dense paths. A built-in mode that records ids in fewer bits (FDR: 28)
 * takes dense ids instead of packed ones: object base + function, every
 * object's functions laid end to end (docs/formats.md). For such a mode the
 * runtime points the slots at this object's own copies of the lean paths
 * below, which add the object's xr_dso_id_offset (id base - object << 24,
 * written once by the runtime) to the packed id and call the handler in the
 * object's xr_dso_dense_handlers, a copy the runtime keeps in step and in
 * which it only ever stores handlers that take dense ids (or NULL). So a
 * dense id never reaches a handler that wants a packed one, however the
 * handlers change while a thread is inside a path. Cost: the executable's
 * lean path plus one add (the handler load is from this object instead). */
#include "trampoline_macros_x86_64.inc"

.macro FN_BEGIN name
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
.endm
.macro FN_END name
        .cfi_endproc
        .size \name, .-\name
.endm

/* Slot t of xr_dso_dispatch_slots is trampoline t's (XR_T_*, dso_abi.h). */
.macro FORWARD name, t
        FN_BEGIN \name
        ARRIVAL_CFI \t
        jmp *xr_dso_dispatch_slots+8*\t(%rip)
        FN_END \name
.endm

        FORWARD xr_dso_entry, XR_T_ENTRY
        FORWARD xr_dso_exit, XR_T_EXIT
        FORWARD xr_dso_tail_exit, XR_T_TAIL
        FORWARD xr_dso_log_args, XR_T_ARG

/* The dense paths: the executable's lean paths (trampoline_macros_x86_64.inc)
 * with this object's handler copy and id offset. */
        FN_BEGIN xr_dso_entry_dense
        LEAN_ENTRY_LIKE_PATH xr_dso_dense_handlers, XR_T_ENTRY, xr_dso_id_offset
        FN_END xr_dso_entry_dense

        FN_BEGIN xr_dso_tail_exit_dense
        LEAN_ENTRY_LIKE_PATH xr_dso_dense_handlers, XR_T_TAIL, xr_dso_id_offset
        FN_END xr_dso_tail_exit_dense

        FN_BEGIN xr_dso_exit_dense
        LEAN_EXIT_PATH xr_dso_dense_handlers, xr_dso_id_offset
        FN_END xr_dso_exit_dense

        FN_BEGIN xr_dso_log_args_dense
        LEAN_ARG_PATH xr_dso_dense_handlers, xr_dso_id_offset
        FN_END xr_dso_log_args_dense

        .section .note.GNU-stack,"",@progbits
