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
 * sled). */
        .text

.macro FORWARD name, index
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        .cfi_def_cfa sp, 16
        .cfi_offset x30, -8
        adrp x16, xr_dso_dispatch_slots
        ldr x16, [x16, #:lo12:xr_dso_dispatch_slots+8*\index]
        br x16
        .cfi_endproc
        .size \name, .-\name
.endm

        FORWARD xr_dso_entry, 0
        FORWARD xr_dso_exit, 1
        FORWARD xr_dso_tail_exit, 2
        FORWARD xr_dso_log_args, 3

        .section .note.GNU-stack,"",@progbits
