/* Probes for regs_aarch64.c: each enters an argument trampoline exactly as
 * a patched call sled does (x0 and x30 pushed, the id already in w17, a
 * `bl`, x0 and x30 popped); run_probe (aarch64/regs_probe.S) loads and
 * stores the registers around them. */
        .text
.macro ARGS_SLED name, tramp
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        stp x0, x30, [sp, #-16]!
        bl \tramp
        ldp x0, x30, [sp], #16
        ret
        .size \name, .-\name
.endm
        ARGS_SLED probe_args_entry, xr_args_entry_trampoline
        ARGS_SLED probe_args_exit, xr_args_exit_trampoline

        .section .note.GNU-stack,"",@progbits
