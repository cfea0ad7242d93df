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

        .text

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

.macro FORWARD name, index
        FN_BEGIN \name
        jmp *xr_dso_dispatch_slots+8*\index(%rip)
        FN_END \name
.endm

        FORWARD xr_dso_entry, 0
        FORWARD xr_dso_exit, 1
        FORWARD xr_dso_tail_exit, 2
        FORWARD xr_dso_log_args, 3

/* Entry and tail exit: as the executable's lean path (rsp = 0 mod 16 on
 * arrival, 64 bytes pushed). */
.macro DENSE_ENTRY_LIKE name, type
        FN_BEGIN \name
        SAVE_LEAN_GPRS
        movq xr_dso_dense_handlers(%rip), %rax
        testq %rax, %rax
        jz 3f
        movl %r10d, %edi
        addl xr_dso_id_offset(%rip), %edi
        movl $\type, %esi
        call *%rax
3:      RESTORE_LEAN_GPRS
        ret
        FN_END \name
.endm

        DENSE_ENTRY_LIKE xr_dso_entry_dense, TYPE_ENTRY
        DENSE_ENTRY_LIKE xr_dso_tail_exit_dense, TYPE_TAIL

/* Exit: jumped to with rsp = 8 mod 16; rax and rdx live (24 bytes). */
        FN_BEGIN xr_dso_exit_dense
        PUSH_CFI %rax
        PUSH_CFI %rdx
        subq $8, %rsp
        .cfi_adjust_cfa_offset 8
        movq xr_dso_dense_handlers(%rip), %rax
        testq %rax, %rax
        jz 1f
        movl %r10d, %edi
        addl xr_dso_id_offset(%rip), %edi
        movl $TYPE_EXIT, %esi
        call *%rax
1:      addq $8, %rsp
        .cfi_adjust_cfa_offset -8
        POP_CFI %rdx
        POP_CFI %rax
        ret
        FN_END xr_dso_exit_dense

/* Log-args entry: the arg1 handler with (id, LOG_ARGS_ENTRY, rdi), else the
 * arg0 handler, as the executable's lean path. */
        FN_BEGIN xr_dso_log_args_dense
        SAVE_LEAN_GPRS
        movq %rdi, %rdx
        movl %r10d, %edi
        addl xr_dso_id_offset(%rip), %edi
        movl $TYPE_LOG_ARGS_ENTRY, %esi
        movq xr_dso_dense_handlers+8(%rip), %rax
        testq %rax, %rax
        jnz 1f
        movq xr_dso_dense_handlers(%rip), %rax
        testq %rax, %rax
        jz 2f
1:      call *%rax
2:      RESTORE_LEAN_GPRS
        ret
        FN_END xr_dso_log_args_dense

        .section .note.GNU-stack,"",@progbits
