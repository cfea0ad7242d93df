/* XRay trampolines for AArch64 (AAPCS64, Linux). The patched sleds call
 * these; they save what is live at that point, read the handler slot of
 * lib/core/handlers.h and call the handler.
 *
 * How a patched call sled (patch_aarch64.c) arrives: the sled has pushed
 * x0 and the function's link register (`stp x0, x30, [sp, #-16]!`), loaded
 * the function id into w17 and done `bl` here, so x30 is the return address
 * into the sled and sp is 16-aligned (as always on AArch64). On return the
 * sled pops x0 and x30 itself. x16 and x17 (IP0/IP1) are the sled's and the
 * dispatch's scratch: a linker veneer may clobber them at any call, so no
 * code keeps a value in them across one (compiler-rt's sled clobbers both
 * too).
 *
 * Dispatch, as on x86-64: each trampoline starts with an indirect branch
 * through its entry of xr_trampoline_dispatch (adrp/ldr/br x16) to one of
 * three paths, chosen by xr_handler_install (core/handlers.c):
 *   - NONE: `ret`. Nothing but x16 is touched; not NZCV.
 *   - LEAN (built-in modes, compiled -mgeneral-regs-only): only the
 *     general registers that can be live. Entry: x1-x8 (arguments, x8 the
 *     indirect result address; x0 is the sled's). Tail exit: x1-x15 too
 *     (x9-x15 may hold an indirect tail call's target). Exit: x1 (x0-x1 hold
 *     an integer result). Not NZCV: the flags are dead at a function's
 *     entry, before its `ret` and before its tail branch, where these sleds
 *     sit.
 *   - FULL (users' handlers, any C code): x1-x15 and x17 (the id), q0-q7
 *     (whole 128 bits: arguments and results, HFA/HVA included; with SVE,
 *     z0-z31, p0-p15 and FFR), FPCR, FPSR and NZCV. At those call boundaries v8-v31 hold nothing the
 *     caller may rely on beyond d8-d15, which the handler preserves
 *     (AAPCS64).
 * A path re-reads its slot after saving, so a handler removed meanwhile is
 * skipped (never called through NULL).
 *
 * SVE. Functions with SVE arguments or results (marked .variant_pcs) pass
 * them in z0-z7 and p0-p3, and keep z8-z23 and p4-p15 for their callers;
 * writing a q register zeroes the z register's bits above 128. So on CPUs
 * with SVE (xr_cpu_sve, from AT_HWCAP) the full paths are the FULL_SVE
 * copies, which keep z0-z31, p0-p15 and FFR whole instead of q0-q7, and
 * xr_call_preserving_vectors does the same. The lean and none paths touch
 * no vector register and keep everything.
 *
 * Event sleds (clang 19 emits them for AArch64; clang 14 and 16 do not)
 * are in a function's body: any register may be live. The sled itself
 * saves x0-x1 (typed: x0-x2) and the compiler treats x30 as clobbered;
 * both event paths keep x2-x18 and NZCV, the full one also q0-q31, FPCR
 * and FPSR.
 *
 * Unwinding. The entry-like paths describe the sled's push as the
 * caller's frame: CFA = sp on arrival + 16, the caller's x30 at CFA - 8.
 * An unwinder then goes from here straight to the instrumented function's
 * caller (the function has no frame at an entry sled, and none left at an
 * exit or tail sled). The event paths say CFA = sp + what the sled pushed,
 * x30 the return address into the function body.
 * SPDX-License-Identifier: MIT */

#include "trampoline_macros_aarch64.inc"

        .arch_extension sve /* the FULL_SVE paths; run only where AT_HWCAP has SVE */
        .text

/* Entry-like trampolines (entry, tail exit).
 *   none: adrp, ldr, br, ret.
 *   lean: + frame, 4 pairs (entry; 8 for tail), 2 loads, cbz, 2 moves,
 *         blr, the same pairs back, ret.
 *   full: x1-x15, x17, q0-q7, NZCV, FPCR, FPSR. */
.macro ENTRY_LIKE_TRAMPOLINE name, type, index, lean_last
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH \index
.L\name\()_none:
        ret

.L\name\()_lean:
        .if \lean_last == 8
        FRAME_OPEN 80
        GPR_PAIRS stp, 16, 1, 8
        CALL_ARG0 xr_handler_lean, \type
        GPR_PAIRS ldp, 16, 1, 8
        FRAME_CLOSE 80
        .else
        FRAME_OPEN 144
        GPR_PAIRS stp, 16, 1, 14
        str x15, [sp, #128]
        CALL_ARG0 xr_handler_lean, \type
        GPR_PAIRS ldp, 16, 1, 14
        ldr x15, [sp, #128]
        FRAME_CLOSE 144
        .endif
        ret

.L\name\()_full:
        FULL_SAVE q
        CALL_ARG0 xr_handler_full, \type
        FULL_RESTORE q
        ret

.L\name\()_full_sve:
        FULL_SAVE sve
        CALL_ARG0 xr_handler_full, \type
        FULL_RESTORE sve
        ret
        .cfi_endproc
        .size \name, .-\name
.endm

ENTRY_LIKE_TRAMPOLINE __xray_FunctionEntry, TYPE_ENTRY, T_ENTRY, 8
ENTRY_LIKE_TRAMPOLINE __xray_FunctionTailExit, TYPE_TAIL, T_TAIL, 15

/* __xray_FunctionExit: x0-x1 hold an integer result (q0-q3 a floating
 * one). lean: frame + x1; full: as the entry's. */
        .globl __xray_FunctionExit
        .type __xray_FunctionExit,@function
        .p2align 4
__xray_FunctionExit:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH T_EXIT
.Lexit_none:
        ret

.Lexit_lean:
        FRAME_OPEN 32
        str x1, [sp, #16]
        CALL_ARG0 xr_handler_lean, TYPE_EXIT
        ldr x1, [sp, #16]
        FRAME_CLOSE 32
        ret

.Lexit_full:
        FULL_SAVE q
        CALL_ARG0 xr_handler_full, TYPE_EXIT
        FULL_RESTORE q
        ret

.Lexit_full_sve:
        FULL_SAVE sve
        CALL_ARG0 xr_handler_full, TYPE_EXIT
        FULL_RESTORE sve
        ret
        .cfi_endproc
        .size __xray_FunctionExit, .-__xray_FunctionExit

/* Calls the arg1 handler of `table` with (id, LOG_ARGS_ENTRY, x0), else
 * its arg0 handler with (id, LOG_ARGS_ENTRY), else nothing. */
.macro ARG_CALL table
        adrp x16, \table
        add x16, x16, #:lo12:\table
        ldr x9, [x16, #SLOT_ARG1]
        cbnz x9, 8f
        ldr x9, [x16, #SLOT_ARG0]
        cbz x9, 9f
8:      mov x2, x0                       /* the logged argument */
        mov w0, w17
        mov w1, #TYPE_LOG_ARGS_ENTRY
        blr x9
9:
.endm

/* __xray_ArgLoggerEntry: entry of an xray_log_args(1) function; the
 * logged argument is x0. Lean saves x1-x9 (x9 holds the handler). */
        .globl __xray_ArgLoggerEntry
        .type __xray_ArgLoggerEntry,@function
        .p2align 4
__xray_ArgLoggerEntry:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH T_ARG
.Larg_none:
        ret

.Larg_lean:
        FRAME_OPEN 96
        GPR_PAIRS stp, 16, 1, 10
        ARG_CALL xr_handler_lean
        GPR_PAIRS ldp, 16, 1, 10
        FRAME_CLOSE 96
        ret

.Larg_full:
        FULL_SAVE q
        ARG_CALL xr_handler_full
        FULL_RESTORE q
        ret

.Larg_full_sve:
        FULL_SAVE sve
        ARG_CALL xr_handler_full
        FULL_RESTORE sve
        ret
        .cfi_endproc
        .size __xray_ArgLoggerEntry, .-__xray_ArgLoggerEntry

/* Event trampolines: `bl` from a function body, any register live. The
 * sled pushed x0-x1 (custom, 16 bytes) or x0-x2 (typed, 32 bytes) and
 * restores them. Frame: x29/x30 at 0, x2-x17 at 16..143, x18 and NZCV at
 * 144 (x2 too: a custom event's sled does not keep it);
 * the full path adds FPCR/FPSR at 160 and q0-q31 at 176..687. */
#define EVENT_LEAN_FRAME 160
#define EVENT_FULL_FRAME 688
.macro EVENT_SAVE size
        FRAME_OPEN \size
        GPR_PAIRS stp, 16, 2, 17
        mrs x9, nzcv
        stp x18, x9, [sp, #144]
.endm
.macro EVENT_RESTORE size
        ldp x18, x9, [sp, #144]
        msr nzcv, x9
        GPR_PAIRS ldp, 16, 2, 17
        FRAME_CLOSE \size
.endm
/* q0-q31 in pairs at off(sp) upwards; `op` is stp or ldp. */
.macro Q_PAIRS op, off
        \op q0, q1, [sp, #\off+0]
        \op q2, q3, [sp, #\off+32]
        \op q4, q5, [sp, #\off+64]
        \op q6, q7, [sp, #\off+96]
        \op q8, q9, [sp, #\off+128]
        \op q10, q11, [sp, #\off+160]
        \op q12, q13, [sp, #\off+192]
        \op q14, q15, [sp, #\off+224]
        \op q16, q17, [sp, #\off+256]
        \op q18, q19, [sp, #\off+288]
        \op q20, q21, [sp, #\off+320]
        \op q22, q23, [sp, #\off+352]
        \op q24, q25, [sp, #\off+384]
        \op q26, q27, [sp, #\off+416]
        \op q28, q29, [sp, #\off+448]
        \op q30, q31, [sp, #\off+480]
.endm

.macro EVENT_TRAMPOLINE name, slot, index, pushed
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        .cfi_def_cfa sp, \pushed
        DISPATCH \index
.L\name\()_none:
        ret

.L\name\()_lean:
        EVENT_SAVE EVENT_LEAN_FRAME
        LOAD_HANDLER xr_handler_lean, \slot
        cbz x16, 9f
        blr x16
9:      EVENT_RESTORE EVENT_LEAN_FRAME
        ret

.L\name\()_full:
        EVENT_SAVE EVENT_FULL_FRAME
        mrs x9, fpcr
        mrs x10, fpsr
        stp x9, x10, [sp, #160]
        Q_PAIRS stp, 176
        LOAD_HANDLER xr_handler_full, \slot
        cbz x16, 9f
        blr x16
9:      Q_PAIRS ldp, 176
        ldp x9, x10, [sp, #160]
        msr fpcr, x9
        msr fpsr, x10
        EVENT_RESTORE EVENT_FULL_FRAME
        ret

.L\name\()_full_sve:
        EVENT_SAVE EVENT_FULL_FRAME
        mrs x9, fpcr
        mrs x10, fpsr
        stp x9, x10, [sp, #160]
        SVE_SAVE \pushed+EVENT_FULL_FRAME
        LOAD_HANDLER xr_handler_full, \slot
        cbz x16, 9f
        blr x16
9:      SVE_RESTORE \pushed+EVENT_FULL_FRAME
        ldp x9, x10, [sp, #160]
        msr fpcr, x9
        msr fpsr, x10
        EVENT_RESTORE EVENT_FULL_FRAME
        ret
        .cfi_endproc
        .size \name, .-\name
.endm

/* __xray_CustomEvent(void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, SLOT_CUSTOM, T_CUSTOM, 16
/* __xray_TypedEvent(uint16_t type, const void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, SLOT_TYPED, T_TYPED, 32

/* void xr_call_preserving_vectors(void (*fn)(void *), void *arg)
 * Slow-path helper for lean handlers: saves q0-q31 (with SVE: z0-z31,
 * p0-p15, FFR), FPCR and FPSR around fn(arg). */
        .globl xr_call_preserving_vectors
        .hidden xr_call_preserving_vectors
        .type xr_call_preserving_vectors,@function
        .p2align 4
xr_call_preserving_vectors:
        .cfi_startproc
        FRAME_OPEN 560
        mrs x9, fpcr
        mrs x10, fpsr
        stp x9, x10, [sp, #16]
        stp x19, x20, [sp, #32]
        .cfi_rel_offset x19, 32
        .cfi_rel_offset x20, 40
        mov x19, x0
        mov x20, x1
        adrp x9, xr_cpu_sve
        ldrb w9, [x9, #:lo12:xr_cpu_sve]
        cbnz w9, 1f
        Q_PAIRS stp, 48
        mov x0, x20
        blr x19
        Q_PAIRS ldp, 48
        b 2f
1:      SVE_SAVE 560
        mov x0, x20
        blr x19
        SVE_RESTORE 560
2:      ldp x9, x10, [sp, #16]
        msr fpcr, x9
        msr fpsr, x10
        ldp x19, x20, [sp, #32]
        .cfi_restore x19
        .cfi_restore x20
        FRAME_CLOSE 560
        ret
        .cfi_endproc
        .size xr_call_preserving_vectors, .-xr_call_preserving_vectors

/* Paths of each trampoline, [T_*][NONE, LEAN, FULL, FULL_SVE] (read-only), and the
 * current one of each, xr_trampoline_dispatch, written only by
 * xr_handler_install (core/handlers.c), under its lock. */
        .section .data.rel.ro,"aw"
        .p2align 3
        .globl xr_trampoline_paths
        .hidden xr_trampoline_paths
        .type xr_trampoline_paths,@object
xr_trampoline_paths:
        .irp t, __xray_FunctionEntry, __xray_FunctionTailExit
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full, .L\t\()_full_sve
        .endr
        .irp t, exit, arg
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full, .L\t\()_full_sve
        .endr
        .irp t, __xray_CustomEvent, __xray_TypedEvent
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full, .L\t\()_full_sve
        .endr
        .size xr_trampoline_paths, .-xr_trampoline_paths

        .data
        .p2align 6
        .globl xr_trampoline_dispatch
        .hidden xr_trampoline_dispatch
        .type xr_trampoline_dispatch,@object
xr_trampoline_dispatch:
        .quad .L__xray_FunctionEntry_none
        .quad .L__xray_FunctionTailExit_none
        .quad .Lexit_none
        .quad .Larg_none
        .quad .L__xray_CustomEvent_none
        .quad .L__xray_TypedEvent_none
        .size xr_trampoline_dispatch, .-xr_trampoline_dispatch

        .section .note.GNU-stack,"",@progbits
