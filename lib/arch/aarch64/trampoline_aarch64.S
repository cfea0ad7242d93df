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
 *     (whole 128 bits: arguments and results, HFA/HVA included), FPCR,
 *     FPSR and NZCV. At those call boundaries v8-v31 hold nothing the
 *     caller may rely on beyond d8-d15, which the handler preserves
 *     (AAPCS64).
 * A path re-reads its slot after saving, so a handler removed meanwhile is
 * skipped (never called through NULL).
 *
 * SVE. Functions with SVE arguments or results (marked .variant_pcs) pass
 * them in z0-z7 and p0-p3. Writing a q register zeroes the z register's
 * bits above 128, so the full path's restore of q0-q7 would cut such
 * arguments to their low 128 bits; the lean and none paths touch no
 * vector register and keep them whole. Not yet handled: instrument no
 * function with SVE arguments when a user's (full-path) handler is set
 * (docs/design.md, "The AArch64 port").
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

#define SLOT_ARG0 0
#define SLOT_ARG1 8
#define SLOT_CUSTOM 16
#define SLOT_TYPED 24

/* Trampoline indexes of xr_trampoline_dispatch (arch.h). */
#define T_ENTRY 0
#define T_TAIL 1
#define T_EXIT 2
#define T_ARG 3
#define T_CUSTOM 4
#define T_TYPED 5

#define TYPE_ENTRY 0
#define TYPE_EXIT 1
#define TYPE_TAIL 2
#define TYPE_LOG_ARGS_ENTRY 3

        .text

.macro DISPATCH index
        adrp x16, xr_trampoline_dispatch
        ldr x16, [x16, #:lo12:xr_trampoline_dispatch+8*\index]
        br x16
.endm

/* x16 = slot `off` of handler table `table` (xr_handler_lean/_full). */
.macro LOAD_HANDLER table, off
        adrp x16, \table
        ldr x16, [x16, #:lo12:\table+\off]
.endm

/* CFI at the start of an entry-like path: see "Unwinding" above. */
.macro SLED_FRAME_CFI
        .cfi_def_cfa sp, 16
        .cfi_offset x30, -8
        .cfi_offset x0, -16
.endm

/* Opens a frame of `size` bytes (x29, x30 at its bottom) and closes it.
 * Pre/post-indexed pairs reach 504 bytes; larger frames move sp first. */
.macro FRAME_OPEN size
        .if \size <= 504
        stp x29, x30, [sp, #-\size]!
        .cfi_adjust_cfa_offset \size
        .else
        sub sp, sp, #\size
        .cfi_adjust_cfa_offset \size
        stp x29, x30, [sp]
        .endif
        .cfi_rel_offset x29, 0
        mov x29, sp
.endm
.macro FRAME_CLOSE size
        .if \size <= 504
        ldp x29, x30, [sp], #\size
        .else
        ldp x29, x30, [sp]
        add sp, sp, #\size
        .endif
        .cfi_adjust_cfa_offset -\size
        .cfi_restore x29
.endm

/* Pairs of general registers x`first`.. x`last` (an even count) at
 * off(sp) upwards; `op` is stp or ldp. */
.macro GPR_PAIRS op, off, first, last
        .set .Lgp_off, \off
        .if \first <= 0 && 0 < \last && (0 - \first) % 2 == 0
        \op x0, x1, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 1 && 1 < \last && (1 - \first) % 2 == 0
        \op x1, x2, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 2 && 2 < \last && (2 - \first) % 2 == 0
        \op x2, x3, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 3 && 3 < \last && (3 - \first) % 2 == 0
        \op x3, x4, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 4 && 4 < \last && (4 - \first) % 2 == 0
        \op x4, x5, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 5 && 5 < \last && (5 - \first) % 2 == 0
        \op x5, x6, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 6 && 6 < \last && (6 - \first) % 2 == 0
        \op x6, x7, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 7 && 7 < \last && (7 - \first) % 2 == 0
        \op x7, x8, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 8 && 8 < \last && (8 - \first) % 2 == 0
        \op x8, x9, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 9 && 9 < \last && (9 - \first) % 2 == 0
        \op x9, x10, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 10 && 10 < \last && (10 - \first) % 2 == 0
        \op x10, x11, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 11 && 11 < \last && (11 - \first) % 2 == 0
        \op x11, x12, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 12 && 12 < \last && (12 - \first) % 2 == 0
        \op x12, x13, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 13 && 13 < \last && (13 - \first) % 2 == 0
        \op x13, x14, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 14 && 14 < \last && (14 - \first) % 2 == 0
        \op x14, x15, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 15 && 15 < \last && (15 - \first) % 2 == 0
        \op x15, x16, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 16 && 16 < \last && (16 - \first) % 2 == 0
        \op x16, x17, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
        .if \first <= 17 && 17 < \last && (17 - \first) % 2 == 0
        \op x17, x18, [sp, #.Lgp_off]
        .set .Lgp_off, .Lgp_off + 16
        .endif
.endm

/* The full paths' state besides the general registers, at 144(sp): NZCV,
 * FPCR, FPSR at 144..167, q0-q7 at 176..303 (x9-x11 are saved first). */
.macro SAVE_FULL_EXTRA
        mrs x9, nzcv
        mrs x10, fpcr
        mrs x11, fpsr
        stp x9, x10, [sp, #144]
        str x11, [sp, #160]
        stp q0, q1, [sp, #176]
        stp q2, q3, [sp, #208]
        stp q4, q5, [sp, #240]
        stp q6, q7, [sp, #272]
.endm
.macro RESTORE_FULL_EXTRA
        ldp q0, q1, [sp, #176]
        ldp q2, q3, [sp, #208]
        ldp q4, q5, [sp, #240]
        ldp q6, q7, [sp, #272]
        ldp x9, x10, [sp, #144]
        ldr x11, [sp, #160]
        msr fpcr, x10
        msr fpsr, x11
        msr nzcv, x9
.endm

/* The full frame, shared by entry, tail, exit and arg-logger: x29/x30 at
 * 0, x1-x15 and x17 at 16..143, then SAVE_FULL_EXTRA's 160 bytes. */
#define FULL_FRAME 304
.macro FULL_SAVE
        FRAME_OPEN FULL_FRAME
        stp x1, x2, [sp, #16]
        stp x3, x4, [sp, #32]
        stp x5, x6, [sp, #48]
        stp x7, x8, [sp, #64]
        stp x9, x10, [sp, #80]
        stp x11, x12, [sp, #96]
        stp x13, x14, [sp, #112]
        stp x15, x17, [sp, #128]
        SAVE_FULL_EXTRA
.endm
.macro FULL_RESTORE
        RESTORE_FULL_EXTRA
        ldp x1, x2, [sp, #16]
        ldp x3, x4, [sp, #32]
        ldp x5, x6, [sp, #48]
        ldp x7, x8, [sp, #64]
        ldp x9, x10, [sp, #80]
        ldp x11, x12, [sp, #96]
        ldp x13, x14, [sp, #112]
        ldp x15, x17, [sp, #128]
        FRAME_CLOSE FULL_FRAME
.endm

/* Calls handler slot ARG0 of `table` with (w17 = id, type). */
.macro CALL_ARG0 table, type
        LOAD_HANDLER \table, SLOT_ARG0
        cbz x16, 9f
        mov w0, w17
        mov w1, #\type
        blr x16
9:
.endm

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
        FULL_SAVE
        CALL_ARG0 xr_handler_full, \type
        FULL_RESTORE
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
        FULL_SAVE
        CALL_ARG0 xr_handler_full, TYPE_EXIT
        FULL_RESTORE
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
        FULL_SAVE
        ARG_CALL xr_handler_full
        FULL_RESTORE
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
        .cfi_endproc
        .size \name, .-\name
.endm

/* __xray_CustomEvent(void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_CustomEvent, SLOT_CUSTOM, T_CUSTOM, 16
/* __xray_TypedEvent(uint16_t type, const void *ptr, size_t size) */
EVENT_TRAMPOLINE __xray_TypedEvent, SLOT_TYPED, T_TYPED, 32

/* void xr_call_preserving_vectors(void (*fn)(void *), void *arg)
 * Slow-path helper for lean handlers: saves q0-q31, FPCR and FPSR around
 * fn(arg). */
        .globl xr_call_preserving_vectors
        .hidden xr_call_preserving_vectors
        .type xr_call_preserving_vectors,@function
        .p2align 4
xr_call_preserving_vectors:
        .cfi_startproc
        FRAME_OPEN 544
        Q_PAIRS stp, 32
        mrs x9, fpcr
        mrs x10, fpsr
        stp x9, x10, [sp, #16]
        mov x9, x0
        mov x0, x1
        blr x9
        ldp x9, x10, [sp, #16]
        msr fpcr, x9
        msr fpsr, x10
        Q_PAIRS ldp, 32
        FRAME_CLOSE 544
        ret
        .cfi_endproc
        .size xr_call_preserving_vectors, .-xr_call_preserving_vectors

/* Paths of each trampoline, [T_*][NONE, LEAN, FULL] (read-only), and the
 * current one of each, xr_trampoline_dispatch, written only by
 * xr_handler_install (core/handlers.c), under its lock. */
        .section .data.rel.ro,"aw"
        .p2align 3
        .globl xr_trampoline_paths
        .hidden xr_trampoline_paths
        .type xr_trampoline_paths,@object
xr_trampoline_paths:
        .irp t, __xray_FunctionEntry, __xray_FunctionTailExit
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full
        .endr
        .irp t, exit, arg
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full
        .endr
        .irp t, __xray_CustomEvent, __xray_TypedEvent
        .quad .L\t\()_none, .L\t\()_lean, .L\t\()_full
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
