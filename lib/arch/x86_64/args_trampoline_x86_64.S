/* The argument trampolines for x86-64: what the sleds of a function whose
 * arguments or result are captured call instead of the usual trampolines
 * (core/patch chooses per sled; docs/core.md, "Argument trampolines").
 *
 * Each keeps exactly what the usual trampoline's full path keeps (see
 * trampoline_x86_64.S, whose macros these share): entry all nine
 * caller-saved general registers, the six status flags, vector registers
 * 0-7 at the width the CPU enables; exit rax, rdx, the flags, vector
 * registers 0-1, and the x87 stack (a long double result is popped around
 * the hook and pushed back bit for bit, X87_EXIT_SPILL). In between they
 * fill a struct xr_arg_regs on the stack (core/dispatch/hot_tables.h: the
 * argument or result registers, the low 64 bits of the vector ones, the
 * sled's stack pointer) and call xr_args_hook(id, type, &regs) when it is
 * set. The entry trampoline serves entry and log-args sleds (type
 * XR_T_ENTRY); the exit trampoline is jumped to in place of the function's
 * `ret` and returns to its caller (type XR_T_EXIT).
 *
 * Each starts with `jmp *xr_args_dispatch[t]` to one copy of its path per
 * vector width and flags form (the variants of the full paths: ymm, zmm,
 * xmm, each with lahf/sahf or pushfq/popfq), chosen once by core/patch
 * through xr_arch_full_path before any sled is sent here, so no event tests
 * the CPU. Alignment and CFI as the usual trampolines': entry arrives at
 * rsp = 0 mod 16, exit at 8; every instruction has CFI, so a backtrace from
 * the hook walks to the function (entry) or its caller (exit).
 * SPDX-License-Identifier: MIT */

#include "trampoline_macros_x86_64.inc"

/* struct xr_arg_regs (hot_tables.h): gpr[8], fpr[8], sp; 16 more bytes
 * keep the area a multiple of 16. */
#define ARGS_GPR 0
#define ARGS_FPR 64
#define ARGS_SP 128
#define ARGS_AREA 144

/* The low 64 bits of xmm`r` to `dst`: VEX-encoded in the copies that keep
 * ymm or zmm (a legacy SSE instruction there may pay a state transition). */
.macro LOW64 vec, r, dst
        .ifc \vec, xmm
        movq %xmm\r, \dst
        .else
        vmovq %xmm\r, \dst
        .endif
.endm

/* In the copies that keep ymm or zmm: the upper halves of the vector
 * registers, saved, are zeroed before the hook runs. The hook is C
 * compiled for SSE, and a legacy SSE instruction while they hold data
 * costs a state transition or a merge on every such instruction (the
 * first one in the hook took most of a call's time, docs/core.md). The
 * saved registers are loaded back whole after it. */
.macro ZERO_UPPER vec
        .ifnc \vec, xmm
        vzeroupper
        .endif
.endm

/* Calls xr_args_hook(r10d, t, area) when it is set; `area` is the
 * address of the struct, rbx-relative. Clobbers the caller-saved registers,
 * which the paths have saved. */
.macro CALL_HOOK t, area
        movq xr_args_hook(%rip), %rax
        testq %rax, %rax
        jz 3f
        movl %r10d, %edi
        movl $\t, %esi
        leaq \area(%rbx), %rdx
        call *%rax
3:
.endm

/* The entry path: ENTRY_FULL_PATH of trampoline_x86_64.S with the struct
 * in VEC_ALLOC's `extra` bytes, at -ARGS_AREA(%rbx). rbx is rsp on arrival
 * minus 88 (9 registers, the flags, rbx), so the sled's stack pointer,
 * the address of the function's return address, is rbx + 96. */
.macro ARGS_ENTRY_PATH how, vec, label
\label:
        ARRIVAL_CFI XR_T_ENTRY
        SAVE_CALLER_GPRS
        SAVE_FLAGS \how
        VEC_ALLOC \vec, 8, ARGS_AREA
        SAVE_VEC \vec, 8
        movq %rdi, -ARGS_AREA+ARGS_GPR+0(%rbx)
        movq %rsi, -ARGS_AREA+ARGS_GPR+8(%rbx)
        movq %rdx, -ARGS_AREA+ARGS_GPR+16(%rbx)
        movq %rcx, -ARGS_AREA+ARGS_GPR+24(%rbx)
        movq %r8, -ARGS_AREA+ARGS_GPR+32(%rbx)
        movq %r9, -ARGS_AREA+ARGS_GPR+40(%rbx)
        movq $0, -ARGS_AREA+ARGS_GPR+48(%rbx)
        movq $0, -ARGS_AREA+ARGS_GPR+56(%rbx)
        .irp r, 0,1,2,3,4,5,6,7
        LOW64 \vec, \r, -ARGS_AREA+ARGS_FPR+8*\r(%rbx)
        .endr
        leaq 96(%rbx), %rax
        movq %rax, -ARGS_AREA+ARGS_SP(%rbx)
        ZERO_UPPER \vec
        CALL_HOOK XR_T_ENTRY, -ARGS_AREA
        RESTORE_VEC \vec, 8
        VEC_FREE \vec, 8
        RESTORE_FLAGS \how
        RESTORE_CALLER_GPRS
        ret
.endm

/* The exit path: EXIT_FULL_PATH with the struct below the x87 area (176
 * bytes below rbx), at -(176 + ARGS_AREA)(%rbx). rbx is rsp on arrival
 * minus 32 (rax, rdx, the flags, rbx): rax is read back from its slot at
 * rbx + 24 (the lahf form has put the flags in the register), rdx from
 * rbx + 16, and the sled's stack pointer is rbx + 32. */
#define EXIT_AREA (176 + ARGS_AREA)
.macro ARGS_EXIT_PATH how, vec, label
\label:
        .cfi_def_cfa_offset 8
        PUSH_CFI %rax
        PUSH_CFI %rdx
        SAVE_FLAGS \how
        VEC_ALLOC \vec, 2, EXIT_AREA
        SAVE_VEC \vec, 2
        X87_EXIT_SPILL
        movq 24(%rbx), %rax
        movq %rax, -EXIT_AREA+ARGS_GPR+0(%rbx)
        movq 16(%rbx), %rax
        movq %rax, -EXIT_AREA+ARGS_GPR+8(%rbx)
        .irp i, 2,3,4,5,6,7
        movq $0, -EXIT_AREA+ARGS_GPR+8*\i(%rbx)
        .endr
        LOW64 \vec, 0, -EXIT_AREA+ARGS_FPR+0(%rbx)
        LOW64 \vec, 1, -EXIT_AREA+ARGS_FPR+8(%rbx)
        .irp i, 2,3,4,5,6,7
        movq $0, -EXIT_AREA+ARGS_FPR+8*\i(%rbx)
        .endr
        leaq 32(%rbx), %rax
        movq %rax, -EXIT_AREA+ARGS_SP(%rbx)
        ZERO_UPPER \vec
        CALL_HOOK XR_T_EXIT, -EXIT_AREA
        X87_EXIT_RELOAD
        RESTORE_VEC \vec, 2
        VEC_FREE \vec, 2
        RESTORE_FLAGS \how
        POP_CFI %rdx
        POP_CFI %rax
        ret
.endm

/* A trampoline `name` (t: XR_T_ENTRY or XR_T_EXIT) and its six copies,
 * each on a 64-byte boundary as the full paths are. */
.macro ARGS_TRAMPOLINE name, t, path
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        ARRIVAL_CFI \t
        jmp *xr_args_dispatch+8*\t(%rip)
        ARGS_COPIES \path, \name
        .cfi_endproc
        .size \name, .-\name
.endm
/* The six copies of `path` (ARGS_ENTRY_PATH or ARGS_EXIT_PATH), named as
 * the usual full paths' copies. */
.macro ARGS_COPIES path, name
        .p2align 6
        \path lahf, ymm, .L\name\()_full
        .p2align 6
        \path pushf, ymm, .L\name\()_full_pushf
        .p2align 6
        \path lahf, zmm, .L\name\()_full_zmm
        .p2align 6
        \path pushf, zmm, .L\name\()_full_zmm_pushf
        .p2align 6
        \path lahf, xmm, .L\name\()_full_xmm
        .p2align 6
        \path pushf, xmm, .L\name\()_full_xmm_pushf
.endm

ARGS_TRAMPOLINE xr_args_entry_trampoline, XR_T_ENTRY, ARGS_ENTRY_PATH
ARGS_TRAMPOLINE xr_args_exit_trampoline, XR_T_EXIT, ARGS_EXIT_PATH

/* xr_args_paths[t][XR_PATH_*] for t = XR_T_ENTRY, XR_T_EXIT: the copies by
 * the numbers of the usual full paths (arch_x86_64.h). NONE and LEAN have
 * no copy of their own here: they hold the plain full one, never chosen. */
.macro ARGS_PATHS t, name
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_NONE, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_LEAN, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_PUSHF, \name\()_full_pushf
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_ZMM, \name\()_full_zmm
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_ZMM_PUSHF, \name\()_full_zmm_pushf
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_XMM, \name\()_full_xmm
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_XMM_PUSHF, \name\()_full_xmm_pushf
.endm
        .section .data.rel.ro,"aw"
        .p2align 3
        .globl xr_args_paths
        .hidden xr_args_paths
        .type xr_args_paths,@object
xr_args_paths:
        ARGS_PATHS XR_T_ENTRY, .Lxr_args_entry_trampoline
        ARGS_PATHS XR_T_EXIT, .Lxr_args_exit_trampoline
        XR_TABLE_END xr_args_paths, 2*XR_ARCH_PATH_COUNT

/* The copy each trampoline jumps to: until core/patch chooses (before the
 * first sled can come here), the xmm/pushfq one, which runs on every
 * x86-64 CPU. */
        .data
        .p2align 4
        .globl xr_args_dispatch
        .hidden xr_args_dispatch
        .type xr_args_dispatch,@object
xr_args_dispatch:
        XR_TABLE_ENTRY xr_args_dispatch, XR_T_ENTRY, .Lxr_args_entry_trampoline_full_xmm_pushf
        XR_TABLE_ENTRY xr_args_dispatch, XR_T_EXIT, .Lxr_args_exit_trampoline_full_xmm_pushf
        XR_TABLE_END xr_args_dispatch, 2

        .section .note.GNU-stack,"",@progbits
