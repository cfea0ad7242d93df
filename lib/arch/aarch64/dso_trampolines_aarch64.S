/* A shared object's own trampolines (libxray-dso.a), one per call-sled kind.
 *
 * A patched sled reaches its trampoline with `bl` (patch_aarch64.c), whose
 * reach is +-128 MiB: the executable's trampolines may lie farther from a
 * shared object. So each object carries these four, hidden, and each is one
 * indirect branch through the object's own slot of xr_dso_dispatch_slots
 * (lib/dso/dso_init.c), as on x86-64: the runtime keeps in each slot the
 * path (none, lean, full) that the executable's trampoline of the same kind
 * would take. Only x16 changes (the sled's scratch, see
 * trampoline_aarch64.S), so the path starts in exactly the state a sled of
 * the executable gives it (w17 = packed id, x30 = the return into the
 * sled).
 *
 * Dense paths, as on x86-64 (see dso_trampolines_x86_64.S): for a built-in
 * mode that takes dense ids the slots point at this object's copies of the
 * lean paths below, which add the object's xr_dso_id_offset to the packed
 * id and call the handler in the object's xr_dso_dense_handlers. Each keeps
 * what the executable's lean path of its kind keeps. */
#include "trampoline_macros_aarch64.inc"

        .text

.macro FN_BEGIN name
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        SLED_FRAME_CFI
.endm
.macro FN_END name
        .cfi_endproc
        .size \name, .-\name
.endm

/* Slot t of xr_dso_dispatch_slots is trampoline t's (XR_T_*, dso_abi.h). */
.macro FORWARD name, t
        FN_BEGIN \name
        adrp x16, xr_dso_dispatch_slots
        ldr x16, [x16, #:lo12:xr_dso_dispatch_slots+8*\t]
        br x16
        FN_END \name
.endm

        FORWARD xr_dso_entry, XR_T_ENTRY
        FORWARD xr_dso_exit, XR_T_EXIT
        FORWARD xr_dso_tail_exit, XR_T_TAIL
        FORWARD xr_dso_log_args, XR_T_ARG

/* The dense paths: the executable's lean paths
 * (trampoline_macros_aarch64.inc) with this object's handler copy and id
 * offset. */
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
