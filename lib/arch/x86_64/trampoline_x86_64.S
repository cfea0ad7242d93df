/* XRay trampolines for x86-64 (System V). The patched sleds call (or, for
 * function exit, jump to) these; they save what is live at that point, read
 * the handler slot of lib/core/dispatch/handlers.h and call the handler.
 *
 * Dispatch. Each trampoline starts with `jmp *xr_trampoline_dispatch[t]`:
 * xr_handler_install (handlers.c) points it at one of three paths, from the
 * slots of lib/core/dispatch/handlers.h:
 *   - NONE: return at once. Cost: one indirect jump (predicted) and `ret`;
 *     no register, not even rflags, is touched.
 *   - LEAN (built-in modes, compiled -mgeneral-regs-only): only the general
 *     caller-saved registers that are live are saved (not r10, which the
 *     sled itself overwrites).
 *   - FULL (users' handlers, any C code): general registers, vector
 *     registers (zmm when XCR0 enables AVX-512 state, else ymm when it
 *     enables AVX, else xmm), rflags, and the x87 stack where it can hold
 *     values. Entry/tail/log-args keep vector registers 0-7 (arguments),
 *     exit 0-1 (results): at those call boundaries no other vector or mask
 *     register can be live. Each width is a copy of the path of its own
 *     (FULL: ymm, FULL_ZMM, FULL_XMM), chosen once by xr_handler_install,
 *     so no event tests the width; the zmm ones store whole zmm registers
 *     only when one has a bit above 255 set, else the ymm halves
 *     (SAVE_ZMM).
 * A path re-reads its slot after saving, so a handler removed meanwhile is
 * skipped (never called through NULL); a handler installed meanwhile may miss
 * the events of that instant.
 *
 * Flags. pushfq+popfq costs more than the whole lean path (popfq is
 * microcoded; a push/pop pair costs under a cycle; docs/performance.md,
 * "Measurements behind design choices", has the figures). Arithmetic
 * flags are dead at every entry, exit and tail sled: the sled is the first
 * instruction of a function, replaces a `ret`, or sits right before an
 * unconditional tail `jmp` (checked on clang 13-19 output). So the lean
 * paths of those trampolines do not save rflags: the lean handler (C code)
 * may change the arithmetic flags, never DF (the ABI keeps it clear across
 * calls). The full paths keep the six status flags (CF PF AF ZF SF OF), as
 * users may expect, but without pushfq/popfq: `lahf` + `seto %al` put them in
 * %ax after rax is saved (AH = SF ZF AF PF CF, AL = OF), and `addb $0x7f,
 * %al` (overflows iff AL is 1, so it sets OF back) + `sahf` restore them,
 * a few cycles in all. DF is 0 here by the ABI and the system flags are
 * not the handler's to change. CPUs without LAHF/SAHF in 64-bit mode (CPUID
 * 0x80000001 ECX bit 0; only the first x86-64 steppings) get a copy of each
 * full path with pushfq/popfq instead, chosen once by xr_handler_install.
 * The NONE path touches nothing. Event sleds sit anywhere in a function body
 * and the compiler does not treat them as calls, so both event paths save
 * the whole of rflags with pushfq/popfq.
 *
 * Alignment (rsp mod 16 on arrival, as the compilers' sleds
 * leave it): entry, tail and
 * arg-logger 0 (two calls deep from an aligned frame); exit 8 (jumped to with
 * the function's return address on top); custom/typed events unknown (compilers
 * 13-19 get it wrong in different places), so those realign dynamically.
 *
 * Unwinding. Every instruction has CFI, so gdb, _Unwind_Backtrace and C++
 * exceptions thrown by a handler walk through from any path. The tail-exit
 * trampoline's CFI skips the instrumented function, which has returned
 * (ARRIVAL_CFI): its own CFI after the epilogue would read the registers it
 * popped from the slots the sled's call and these pushes overwrite
 * (docs/core.md, "Unwinding").
 * SPDX-License-Identifier: MIT */

#include "trampoline_macros_x86_64.inc"

/* The full path of an entry-like trampoline (entry, tail exit, log-args
 * entry: number t), at `label`; `how` as SAVE_FLAGS, `vec` as SAVE_VEC
 * (arguments: vector registers 0-7). 80 bytes pushed (9 registers +
 * flags): rsp = 0 mod 16 at the call. */
.macro ENTRY_FULL_PATH t, how, vec, label
\label:
        ARRIVAL_CFI \t
        SAVE_CALLER_GPRS
        SAVE_FLAGS \how
        VEC_ALLOC \vec, 8
        SAVE_VEC \vec, 8
        .if \t == XR_T_ARG
        ARG_CALL xr_handler_full
        .else
        CALL_ARG0 xr_handler_full, \t
        .endif
        RESTORE_VEC \vec, 8
        VEC_FREE \vec, 8
        RESTORE_FLAGS \how
        RESTORE_CALLER_GPRS
        ret
.endm

/* The six full paths of a trampoline, by `path` (ENTRY_FULL_PATH or
 * EXIT_FULL_PATH): ymm, zmm and xmm (the vector state the CPU and OS
 * enable), each with lahf/sahf or pushfq/popfq; at name_full, _full_pushf,
 * _full_zmm, ... (the PATHS table below). Each starts on a 64-byte
 * boundary, so its speed does not depend on the length of the copies
 * before it: when the ymm copies lost 12 bytes, the zmm one, moved up with
 * them, went from 3.85 to 4.3-4.8 ns per event with a no-op handler (AMD
 * EPYC Zen 4; docs/performance.md). */
.macro FULL_PATH_ALIGNED path, t, how, vec, label
        .p2align 6
        \path \t, \how, \vec, \label
.endm
.macro FULL_PATHS path, t, name
        FULL_PATH_ALIGNED \path, \t, lahf, ymm, \name\()_full
        FULL_PATH_ALIGNED \path, \t, pushf, ymm, \name\()_full_pushf
        FULL_PATH_ALIGNED \path, \t, lahf, zmm, \name\()_full_zmm
        FULL_PATH_ALIGNED \path, \t, pushf, zmm, \name\()_full_zmm_pushf
        FULL_PATH_ALIGNED \path, \t, lahf, xmm, \name\()_full_xmm
        FULL_PATH_ALIGNED \path, \t, pushf, xmm, \name\()_full_xmm_pushf
.endm

/* Entry-like trampolines (entry, tail exit): arrive with rsp = 0 mod 16.
 *   none:  indirect jmp, ret.
 *   lean:  indirect jmp, 8 pushes, 1 load, 2 moves, call, 8 pops, ret
 *          (rflags and r10 not saved, see the head comment and
 *          SAVE_LEAN_GPRS).
 *   full:  indirect jmp, 9 pushes, lahf/seto + add/sahf (1 push), rbx
 *          frame for the 32-aligned vector area, 8 vector stores and loads
 *          (ymm, or xmm without AVX; with AVX-512 first a 6-instruction test of
 *          zmm0-7's upper halves, then ymm, or zmm when one is set), call. */
.macro ENTRY_LIKE_TRAMPOLINE name, t
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        ARRIVAL_CFI \t
        jmp *xr_trampoline_dispatch+8*\t(%rip)
.L\name\()_none:
        ret

.L\name\()_lean:
        LEAN_ENTRY_LIKE_PATH xr_handler_lean, \t

        FULL_PATHS ENTRY_FULL_PATH, \t, .L\name
        .cfi_endproc
        .size \name, .-\name
.endm

ENTRY_LIKE_TRAMPOLINE __xray_FunctionEntry, XR_T_ENTRY
ENTRY_LIKE_TRAMPOLINE __xray_FunctionTailExit, XR_T_TAIL

/* __xray_ArgLoggerEntry: entry of an xray_log_args(1) function. Calls the
 * arg1 handler with (id, LOG_ARGS_ENTRY, rdi); without one, the arg0 handler
 * with (id, LOG_ARGS_ENTRY) (ARG_CALL). Order: lean arg1, full arg1, lean
 * arg0, full arg0 (the dispatch pointer follows the same order). Budget as
 * the entry trampoline, plus one load and test. */
        .globl __xray_ArgLoggerEntry
        .type __xray_ArgLoggerEntry,@function
        .p2align 4
__xray_ArgLoggerEntry:
        .cfi_startproc
        jmp *xr_trampoline_dispatch+8*XR_T_ARG(%rip)
.Larg_none:
        ret

.Larg_lean:
        LEAN_ARG_PATH xr_handler_lean

        FULL_PATHS ENTRY_FULL_PATH, XR_T_ARG, .Larg
        .cfi_endproc
        .size __xray_ArgLoggerEntry, .-__xray_ArgLoggerEntry

/* The full path of __xray_FunctionExit (t: XR_T_EXIT), at `label`; `how`
 * as SAVE_FLAGS, `vec` as SAVE_VEC (return values: vector registers 0-1).
 * Arrives at rsp = 8 mod 16; 24 bytes pushed: 0 mod 16 at the call. */
.macro EXIT_FULL_PATH t, how, vec, label
\label:
        .cfi_def_cfa_offset 8
        PUSH_CFI %rax
        PUSH_CFI %rdx
        SAVE_FLAGS \how
        VEC_ALLOC \vec, 2, 176           /* x87 area: 176 bytes below rbx */
        SAVE_VEC \vec, 2
        X87_EXIT_SPILL
        CALL_ARG0 xr_handler_full, XR_T_EXIT
        X87_EXIT_RELOAD
        RESTORE_VEC \vec, 2
        VEC_FREE \vec, 2
        RESTORE_FLAGS \how
        POP_CFI %rdx
        POP_CFI %rax
        ret
.endm

/* __xray_FunctionExit: jumped to from the exit sled with rsp = 8 mod 16 and
 * the function's return address on top; returns to the function's caller.
 * Live: rax, rdx, xmm0, xmm1 (ymm/zmm for vector returns), the x87 stack
 * (long double returns).
 *   none: indirect jmp, ret.
 *   lean: indirect jmp, 3 pushes, 1 load, 2 moves, call, 3 pops, ret.
 *   full: indirect jmp, 2 pushes, lahf/seto + add/sahf (1 push), rbx
 *         frame, ymm0-1 (with AVX-512 first a 3-instruction test of the
 *         upper halves, then ymm0-1 or zmm0-1), a 5-instruction look-up of
 *         the id among those known to return nothing in x87
 *         (X87_EXIT_SPILL), call.
 * A long double result (st0; st0-st1 for a complex one) is popped to memory
 * around the handler and pushed back, the status word with it
 * (X87_EXIT_SPILL): the handler may use the whole x87 stack, as the ABI
 * allows any callee. compiler-rt leaves the values in place and loses them
 * to such a handler. */
        .globl __xray_FunctionExit
        .type __xray_FunctionExit,@function
        .p2align 4
__xray_FunctionExit:
        .cfi_startproc
        jmp *xr_trampoline_dispatch+8*XR_T_EXIT(%rip)
.Lexit_none:
        ret

.Lexit_lean:
        LEAN_EXIT_PATH xr_handler_lean

        FULL_PATHS EXIT_FULL_PATH, XR_T_EXIT, .Lexit
        .cfi_endproc
        .size __xray_FunctionExit, .-__xray_FunctionExit

/* Event trampolines: called from anywhere in a function body with unknown
 * stack alignment; every register may be live. Both paths keep rflags and
 * all caller-saved general registers, build an rbp frame and realign rsp to
 * 32 before calling (compiler-rt 14 does not realign and its FDR handler
 * crashes on a custom event from a frameless leaf function).
 *   none: indirect jmp, ret.
 *   lean: indirect jmp, pushfq/popfq, 10 pushes, and, call.
 *   full: as lean, + ymm0-15 (xmm without AVX) and the x87 stack; with
 *         AVX-512, zmm0-31, k0-7, MXCSR and the x87 stack.
 * `zext` zero-extends the typed-event type (clang 14 sets only %di). */
/* The event trampolines' frame, shared by their lean and full paths: rcx,
 * flags and rbp pushed with CFI, rbp as the frame (CFA) register, then the
 * other caller-saved GPRs, 64 bytes below rbp. The flags may be live in the
 * middle of a function body, so both paths keep them with pushfq/popfq. */
.macro EVENT_SAVE_GPRS
        PUSH_CFI %rcx
        pushfq
        .cfi_adjust_cfa_offset 8
        PUSH_CFI %rbp
        .cfi_rel_offset %rbp, 0
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq %rax
        pushq %rdx
        pushq %rsi
        pushq %rdi
        pushq %r8
        pushq %r9
        pushq %r10
        pushq %r11
.endm

/* Undoes EVENT_SAVE_GPRS (rsp may have been realigned below it) and returns
 * to the sled; `pushed` is the number of registers the sled pushed. */
.macro EVENT_RESTORE_GPRS_AND_RETURN pushed
        leaq -64(%rbp), %rsp
        popq %r11
        popq %r10
        popq %r9
        popq %r8
        popq %rdi
        popq %rsi
        popq %rdx
        popq %rax
        popq %rbp
        .cfi_def_cfa %rsp, 24+8*\pushed
        .cfi_restore %rbp
        popfq
        .cfi_adjust_cfa_offset -8
        POP_CFI %rcx
        ret
.endm

/* Calls the event handler in slot `slot` of `table` when one is set. reload: the
 * arguments come back from the frame (the full paths used eax/ecx/edx).
 * zext: the first argument is a uint16_t (TypedEvent's type). */
.macro EVENT_CALL table, slot, zext, reload
        .if \reload
        movq -32(%rbp), %rdi
        movq -24(%rbp), %rsi
        movq -16(%rbp), %rdx
        .endif
        .if \zext
        movzwl %di, %edi
        .endif
        movq \table+8*\slot(%rip), %rax
        testq %rax, %rax
        jz 3f
        call *%rax
3:
.endm

/* An event trampoline's full path without AVX-512 state, at `label`: `vec`
 * ymm or xmm (SAVE_VECTORS), one copy each, chosen once at install. */
.macro EVENT_FULL_PATH vec, slot, zext, pushed, label
\label:
        .cfi_def_cfa_offset 8+8*\pushed
        EVENT_SAVE_GPRS
        andq $-32, %rsp
        subq $704, %rsp                  /* vectors 0-15 at 0, x87 at 512..688 */
        SAVE_VECTORS \vec, 0, 16
        X87_SPILL 512, %rsp
        EVENT_CALL xr_handler_full, \slot, \zext, 1
        X87_RELOAD 512, %rsp
        RESTORE_VECTORS \vec, 0, 16
        EVENT_RESTORE_GPRS_AND_RETURN \pushed
.endm

.macro EVENT_TRAMPOLINE name, slot, zext, t, pushed
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        /* The sled pushed `pushed` argument registers before its call, and
         * compilers emit no CFI for those pushes. Describe them here, as if
         * they were part of this frame: the caller's stack pointer is above
         * them and our return address sits below them. Then debuggers and
         * unwinders recover the caller's real rsp and walk on correctly. */
        .cfi_def_cfa_offset 8+8*\pushed
        .cfi_offset %rip, -(8+8*\pushed)
        .cfi_offset %rdi, -8
        .cfi_offset %rsi, -16
        .if \pushed == 3
        .cfi_offset %rdx, -24
        .endif
        jmp *xr_trampoline_dispatch+8*\t(%rip)
.L\name\()_none:
        ret

.L\name\()_lean:
        EVENT_SAVE_GPRS                  /* 64 bytes below rbp */
        andq $-16, %rsp
        EVENT_CALL xr_handler_lean, \slot, \zext, 0
        EVENT_RESTORE_GPRS_AND_RETURN \pushed

        EVENT_FULL_PATH ymm, \slot, \zext, \pushed, .L\name\()_full
        EVENT_FULL_PATH xmm, \slot, \zext, \pushed, .L\name\()_full_xmm

        /* AVX-512 (xr_vector_avx512): zmm0-31 and k0-7 may be live too.
         * Explicit moves into a 64-aligned area: zmm0-31 at 0, k0-7 at 2048
         * (kmovq, all 64 bits, with AVX512BW; kmovw keeps the 16 bits that
         * exist without it), the x87 stack at 2112 as above, MXCSR at 2288.
         * XSAVE/XRSTOR of the same state cost 304 TSC ticks per event with
         * a no-op handler here, this path 55 (the ymm one 31). */
.L\name\()_full_zmm:
        .cfi_def_cfa_offset 8+8*\pushed
        EVENT_SAVE_GPRS
        andq $-64, %rsp
        subq $2304, %rsp
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vmovdqa64 %zmm\r, 64*\r(%rsp)
        .endr
        cmpb $0, xr_cpu_avx512bw(%rip)
        je 1f
        .irp k, 0,1,2,3,4,5,6,7
        kmovq %k\k, 2048+8*\k(%rsp)
        .endr
        jmp 2f
1:
        .irp k, 0,1,2,3,4,5,6,7
        kmovw %k\k, 2048+8*\k(%rsp)
        .endr
2:      stmxcsr 2288(%rsp)
        X87_SPILL 2112, %rsp
        EVENT_CALL xr_handler_full, \slot, \zext, 1
        X87_RELOAD 2112, %rsp
        ldmxcsr 2288(%rsp)
        cmpb $0, xr_cpu_avx512bw(%rip)
        je 1f
        .irp k, 0,1,2,3,4,5,6,7
        kmovq 2048+8*\k(%rsp), %k\k
        .endr
        jmp 2f
1:
        .irp k, 0,1,2,3,4,5,6,7
        kmovw 2048+8*\k(%rsp), %k\k
        .endr
2:
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        vmovdqa64 64*\r(%rsp), %zmm\r
        .endr
        EVENT_RESTORE_GPRS_AND_RETURN \pushed
        .cfi_endproc
        .size \name, .-\name
.endm

/* __xray_CustomEvent(void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, XR_SLOT_CUSTOM, 0, XR_T_CUSTOM, 2
/* __xray_TypedEvent(uint16_t type, const void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, XR_SLOT_TYPED, 1, XR_T_TYPED, 3

/* void xr_call_preserving_vectors(void (*fn)(void *), void *arg)
 * Slow-path helper for lean handlers: saves the whole vector and x87 state
 * (XSAVE of the user components the OS enabled, else FXSAVE: x87, MXCSR,
 * xmm0-15), gives fn a clean x87 stack (fninit), calls fn(arg), restores.
 * Costs a few hundred cycles; only for paths that make system calls. */
        .globl xr_call_preserving_vectors
        .hidden xr_call_preserving_vectors
        .type xr_call_preserving_vectors,@function
        .p2align 4
xr_call_preserving_vectors:
        .cfi_startproc
        PUSH_CFI %rbp
        .cfi_rel_offset %rbp, 0
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq %rbx
        .cfi_offset %rbx, -24
        pushq %r12
        .cfi_offset %r12, -32
        movq %rdi, %rbx
        movq %rsi, %r12
        movl xr_xsave_size(%rip), %eax
        testl %eax, %eax
        jz .Lcpv_fxsave
        subq %rax, %rsp
        andq $-64, %rsp
        xorl %ecx, %ecx                  /* XRSTOR needs a zeroed header */
        movq %rcx, 512(%rsp)
        movq %rcx, 520(%rsp)
        movq %rcx, 528(%rsp)
        movq %rcx, 536(%rsp)
        movq %rcx, 544(%rsp)
        movq %rcx, 552(%rsp)
        movq %rcx, 560(%rsp)
        movq %rcx, 568(%rsp)
        movl xr_xsave_mask(%rip), %eax
        movl xr_xsave_mask+4(%rip), %edx
        xsave (%rsp)
        fninit
        movq %r12, %rdi
        call *%rbx
        movl xr_xsave_mask(%rip), %eax
        movl xr_xsave_mask+4(%rip), %edx
        xrstor (%rsp)
        jmp .Lcpv_done
.Lcpv_fxsave:
        subq $512, %rsp
        andq $-16, %rsp
        fxsave64 (%rsp)
        fninit
        movq %r12, %rdi
        call *%rbx
        fxrstor64 (%rsp)
.Lcpv_done:
        leaq -16(%rbp), %rsp
        popq %r12
        .cfi_restore %r12
        popq %rbx
        .cfi_restore %rbx
        popq %rbp
        .cfi_def_cfa %rsp, 8
        .cfi_restore %rbp
        ret
        .cfi_endproc
        .size xr_call_preserving_vectors, .-xr_call_preserving_vectors

/* Paths of each trampoline, [XR_T_*][XR_PATH_*: NONE, LEAN, FULL, then
 * this port's full variants of arch_x86_64.h: FULL_PUSHF, FULL_ZMM,
 * FULL_ZMM_PUSHF, FULL_XMM, FULL_XMM_PUSHF] (read-only). FULL: ymm.
 * _PUSHF: for CPUs without LAHF/SAHF (the event trampolines' full paths use
 * pushfq anyway). FULL_ZMM: when XCR0 enables AVX-512 state (zmm0-7 /
 * zmm0-1; zmm0-31 and k0-7 in the event trampolines). FULL_XMM: without
 * AVX. And the current one of each,
 * xr_trampoline_dispatch, written only by xr_handler_install
 * (core/dispatch/handlers.c), under its lock. XR_TABLE_ENTRY stops the assembly if
 * an entry is not where the numbers put it. */
.macro PATHS t, name, pushf=_full_pushf, zmm=_full_zmm, zmm_pushf=_full_zmm_pushf, xmm=_full_xmm, xmm_pushf=_full_xmm_pushf
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_NONE, \name\()_none
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_LEAN, \name\()_lean
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL, \name\()_full
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_PUSHF, \name\pushf
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_ZMM, \name\zmm
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_ZMM_PUSHF, \name\zmm_pushf
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_XMM, \name\xmm
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_XMM_PUSHF, \name\xmm_pushf
.endm
        .section .data.rel.ro,"aw"
        .p2align 3
        .globl xr_trampoline_paths
        .hidden xr_trampoline_paths
        .type xr_trampoline_paths,@object
xr_trampoline_paths:
        PATHS XR_T_ENTRY, .L__xray_FunctionEntry
        PATHS XR_T_EXIT, .Lexit
        PATHS XR_T_TAIL, .L__xray_FunctionTailExit
        PATHS XR_T_ARG, .Larg
        PATHS XR_T_CUSTOM, .L__xray_CustomEvent, _full, _full_zmm, _full_zmm, _full_xmm, _full_xmm
        PATHS XR_T_TYPED, .L__xray_TypedEvent, _full, _full_zmm, _full_zmm, _full_xmm, _full_xmm
        XR_TABLE_END xr_trampoline_paths, XR_T_COUNT*XR_ARCH_PATH_COUNT

/* Ids whose exit found the x87 stack empty (X87_EXIT_SPILL), by the id's
 * low bits; 0 is no id. Written by the exit full paths only. */
        .bss
        .p2align 6
        .globl xr_x87_free_exits
        .hidden xr_x87_free_exits
        .type xr_x87_free_exits,@object
xr_x87_free_exits:
        .zero 4*XR_X87_FREE_SLOTS
        .size xr_x87_free_exits, .-xr_x87_free_exits

        XR_DISPATCH_TABLE

        .section .note.GNU-stack,"",@progbits
