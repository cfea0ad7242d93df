/* XRay trampolines for AArch64 (AAPCS64, Linux). The patched sleds call
 * these; they save what is live at that point, read the handler slot of
 * lib/core/dispatch/handlers.h and call the handler.
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
 * three paths, chosen by xr_handler_install (core/dispatch/handlers.c):
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
.macro ENTRY_LIKE_TRAMPOLINE name, t
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH \t
.L\name\()_none:
        ret

.L\name\()_lean:
        LEAN_ENTRY_LIKE_PATH xr_handler_lean, \t

.L\name\()_full:
        FULL_SAVE q
        CALL_ARG0 xr_handler_full, \t
        FULL_RESTORE q
        ret

.L\name\()_full_sve:
        FULL_SAVE sve
        CALL_ARG0 xr_handler_full, \t
        FULL_RESTORE sve
        ret
        .cfi_endproc
        .size \name, .-\name
.endm

ENTRY_LIKE_TRAMPOLINE __xray_FunctionEntry, XR_T_ENTRY
ENTRY_LIKE_TRAMPOLINE __xray_FunctionTailExit, XR_T_TAIL

/* __xray_FunctionExit: x0-x1 hold an integer result (q0-q3 a floating
 * one). lean: frame + x1; full: as the entry's. */
        .globl __xray_FunctionExit
        .type __xray_FunctionExit,@function
        .p2align 4
__xray_FunctionExit:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH XR_T_EXIT
.Lexit_none:
        ret

.Lexit_lean:
        LEAN_EXIT_PATH xr_handler_lean

.Lexit_full:
        FULL_SAVE q
        CALL_ARG0 xr_handler_full, XR_T_EXIT
        FULL_RESTORE q
        ret

.Lexit_full_sve:
        FULL_SAVE sve
        CALL_ARG0 xr_handler_full, XR_T_EXIT
        FULL_RESTORE sve
        ret
        .cfi_endproc
        .size __xray_FunctionExit, .-__xray_FunctionExit

/* __xray_ArgLoggerEntry: entry of an xray_log_args(1) function; the
 * logged argument is x0. Lean saves x1-x9 (x9 holds the handler). */
        .globl __xray_ArgLoggerEntry
        .type __xray_ArgLoggerEntry,@function
        .p2align 4
__xray_ArgLoggerEntry:
        .cfi_startproc
        SLED_FRAME_CFI
        DISPATCH XR_T_ARG
.Larg_none:
        ret

.Larg_lean:
        LEAN_ARG_PATH xr_handler_lean

.Larg_full:
        FULL_SAVE q
        ARG_CALL xr_handler_full, x9
        FULL_RESTORE q
        ret

.Larg_full_sve:
        FULL_SAVE sve
        ARG_CALL xr_handler_full, x9
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

/* An event trampoline's full path: .L<name>_full keeps q0-q31 (vec q),
 * .L<name>_full_sve the whole SVE state (vec sve), both FPCR and FPSR. */
.macro EVENT_FULL_PATH name, slot, pushed, vec
        .ifc \vec, q
.L\name\()_full:
        .else
.L\name\()_full_sve:
        .endif
        EVENT_SAVE EVENT_FULL_FRAME
        FP_CONTROL_SAVE 160
        .ifc \vec, q
        Q_PAIRS stp, 176
        .else
        SVE_SAVE \pushed+EVENT_FULL_FRAME
        .endif
        LOAD_HANDLER xr_handler_full, \slot
        cbz x16, 9f
        blr x16
9:
        .ifc \vec, q
        Q_PAIRS ldp, 176
        .else
        SVE_RESTORE \pushed+EVENT_FULL_FRAME
        .endif
        FP_CONTROL_RESTORE 160
        EVENT_RESTORE EVENT_FULL_FRAME
        ret
.endm

.macro EVENT_TRAMPOLINE name, slot, t, pushed
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        .cfi_def_cfa sp, \pushed
        DISPATCH \t
.L\name\()_none:
        ret

.L\name\()_lean:
        EVENT_SAVE EVENT_LEAN_FRAME
        LOAD_HANDLER xr_handler_lean, \slot
        cbz x16, 9f
        blr x16
9:      EVENT_RESTORE EVENT_LEAN_FRAME
        ret

        EVENT_FULL_PATH \name, \slot, \pushed, q
        EVENT_FULL_PATH \name, \slot, \pushed, sve
        .cfi_endproc
        .size \name, .-\name
.endm

/* __xray_CustomEvent(void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, XR_SLOT_CUSTOM, XR_T_CUSTOM, 16
/* __xray_TypedEvent(uint16_t type, const void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, XR_SLOT_TYPED, XR_T_TYPED, 32

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
        FP_CONTROL_SAVE 16
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
2:      FP_CONTROL_RESTORE 16
        ldp x19, x20, [sp, #32]
        .cfi_restore x19
        .cfi_restore x20
        FRAME_CLOSE 560
        ret
        .cfi_endproc
        .size xr_call_preserving_vectors, .-xr_call_preserving_vectors

/* Paths of each trampoline, [XR_T_*][XR_PATH_*: NONE, LEAN, FULL,
 * FULL_SVE] (read-only), and the current one of each,
 * xr_trampoline_dispatch, written only by xr_handler_install
 * (core/dispatch/handlers.c), under its lock. XR_TABLE_ENTRY stops the assembly if
 * an entry is not where the numbers put it. */
.macro PATHS t, name
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_NONE, \name\()_none
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_LEAN, \name\()_lean
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL, \name\()_full
        XR_TABLE_ENTRY xr_trampoline_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_SVE, \name\()_full_sve
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
        PATHS XR_T_CUSTOM, .L__xray_CustomEvent
        PATHS XR_T_TYPED, .L__xray_TypedEvent
        XR_TABLE_END xr_trampoline_paths, XR_T_COUNT*XR_ARCH_PATH_COUNT

        XR_DISPATCH_TABLE

        .section .note.GNU-stack,"",@progbits
