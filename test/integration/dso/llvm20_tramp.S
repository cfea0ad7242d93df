/* Trampolines written the way LLVM 20's per-object ones work (compiler-rt
 * 20's xray_trampoline_x86_64.S), for llvm20.sh: load the handler from the executable's
 * exported variable through the GOT, save the argument registers and
 * xmm0-1, call it with (packed id from r10d, entry type). The test's own
 * code, not compiler-rt's. */
        .text
.macro TRAMP name, var, type, exit
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        subq $88, %rsp              /* 8 saves + 2 xmm + alignment */
        .cfi_adjust_cfa_offset 88
        movq %rdi, 0(%rsp)
        movq %rsi, 8(%rsp)
        movq %rdx, 16(%rsp)
        movq %rcx, 24(%rsp)
        movq %r8, 32(%rsp)
        movq %r9, 40(%rsp)
        movq %rax, 48(%rsp)
        movdqu %xmm0, 56(%rsp)
        movq \var@GOTPCREL(%rip), %rax
        movq (%rax), %rax
        testq %rax, %rax
        je 1f
        movl %r10d, %edi
        movl $\type, %esi
        call *%rax
1:
        movq 0(%rsp), %rdi
        movq 8(%rsp), %rsi
        movq 16(%rsp), %rdx
        movq 24(%rsp), %rcx
        movq 32(%rsp), %r8
        movq 40(%rsp), %r9
        movq 48(%rsp), %rax
        movdqu 56(%rsp), %xmm0
        addq $88, %rsp
        .cfi_adjust_cfa_offset -88
        ret
        .cfi_endproc
        .size \name, .-\name
.endm
        TRAMP llvm20_entry, _ZN6__xray19XRayPatchedFunctionE, 0
        TRAMP llvm20_exit, _ZN6__xray19XRayPatchedFunctionE, 1
        TRAMP llvm20_tail, _ZN6__xray19XRayPatchedFunctionE, 2
        TRAMP llvm20_args, _ZN6__xray19XRayPatchedFunctionE, 3
        .section .note.GNU-stack,"",@progbits
