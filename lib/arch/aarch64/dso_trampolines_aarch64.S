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

.macro FORWARD name, index
        FN_BEGIN \name
        adrp x16, xr_dso_dispatch_slots
        ldr x16, [x16, #:lo12:xr_dso_dispatch_slots+8*\index]
        br x16
        FN_END \name
.endm

        FORWARD xr_dso_entry, 0
        FORWARD xr_dso_exit, 1
        FORWARD xr_dso_tail_exit, 2
        FORWARD xr_dso_log_args, 3

/* w0 = w17 + xr_dso_id_offset (x9: dead, or saved, in every caller). */
.macro DENSE_ID
        adrp x9, xr_dso_id_offset
        ldr w9, [x9, #:lo12:xr_dso_id_offset]
        add w0, w17, w9
.endm

/* Calls the dense arg0 handler with (dense id, type). */
.macro DENSE_CALL_ARG0 type
        adrp x16, xr_dso_dense_handlers
        ldr x16, [x16, #:lo12:xr_dso_dense_handlers]
        cbz x16, 9f
        DENSE_ID
        mov w1, #\type
        blr x16
9:
.endm

/* Entry: x1-x8; tail exit: x1-x15 (as the executable's lean paths). */
        FN_BEGIN xr_dso_entry_dense
        FRAME_OPEN 80
        GPR_PAIRS stp, 16, 1, 8
        DENSE_CALL_ARG0 TYPE_ENTRY
        GPR_PAIRS ldp, 16, 1, 8
        FRAME_CLOSE 80
        ret
        FN_END xr_dso_entry_dense

        FN_BEGIN xr_dso_tail_exit_dense
        FRAME_OPEN 144
        GPR_PAIRS stp, 16, 1, 14
        str x15, [sp, #128]
        DENSE_CALL_ARG0 TYPE_TAIL
        GPR_PAIRS ldp, 16, 1, 14
        ldr x15, [sp, #128]
        FRAME_CLOSE 144
        ret
        FN_END xr_dso_tail_exit_dense

/* Exit: x1 (x0-x1 hold an integer result). */
        FN_BEGIN xr_dso_exit_dense
        FRAME_OPEN 32
        str x1, [sp, #16]
        DENSE_CALL_ARG0 TYPE_EXIT
        ldr x1, [sp, #16]
        FRAME_CLOSE 32
        ret
        FN_END xr_dso_exit_dense

/* Log-args entry: the dense arg1 handler with (id, LOG_ARGS_ENTRY, x0),
 * else the arg0 handler; x1-x10 kept (x9, x10: scratch here). */
        FN_BEGIN xr_dso_log_args_dense
        FRAME_OPEN 96
        GPR_PAIRS stp, 16, 1, 10
        adrp x16, xr_dso_dense_handlers
        add x16, x16, #:lo12:xr_dso_dense_handlers
        ldr x10, [x16, #8]
        cbnz x10, 8f
        ldr x10, [x16]
        cbz x10, 9f
8:      mov x2, x0                       /* the logged argument */
        DENSE_ID
        mov w1, #TYPE_LOG_ARGS_ENTRY
        blr x10
9:      GPR_PAIRS ldp, 16, 1, 10
        FRAME_CLOSE 96
        ret
        FN_END xr_dso_log_args_dense

        .section .note.GNU-stack,"",@progbits
