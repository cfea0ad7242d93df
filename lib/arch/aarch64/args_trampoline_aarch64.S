/* The argument trampolines for AArch64: what the sleds of a function whose
 * arguments or result are captured call instead of the usual trampolines
 * (core/patch chooses per sled; docs/core.md, "Argument trampolines").
 *
 * A sled reaches them as it reaches the usual ones (trampoline_aarch64.S):
 * x0 and x30 pushed by the sled, the id in w17, `bl` here (from a shared
 * object, through its near stub: `ldr x16; br x16`, which touches nothing
 * else). Each keeps what the usual full path keeps (FULL_SAVE: x1-x15,
 * x17, q0-q7 whole, NZCV, FPCR, FPSR; with SVE, z0-z31, p0-p15 and FFR
 * whole), fills a struct xr_arg_regs below its frame (core/dispatch/
 * hot_tables.h: x0-x7 and d0-d7 at entry, x0-x1 and d0-d1 at exit, the
 * sled's stack pointer) and calls xr_args_hook(w17, type, &regs) when it
 * is set. The entry trampoline serves entry and log-args sleds (type
 * XR_T_ENTRY), the exit trampoline exit sleds (XR_T_EXIT).
 *
 * Each starts with an indirect branch through xr_args_dispatch[t] to its
 * q or SVE copy, chosen once by core/patch (xr_arch_full_path) before any
 * sled is sent here. CFI as the usual call paths' (SLED_FRAME_CFI): an
 * unwinder goes from the hook to the instrumented function's caller.
 * SPDX-License-Identifier: MIT */

#include "trampoline_macros_aarch64.inc"

        .arch_extension sve /* the SVE copies; run only where AT_HWCAP has SVE */
        .text

/* struct xr_arg_regs (hot_tables.h): gpr[8] at 0, fpr[8] at 64, sp at 128;
 * 144 bytes keep sp 16-aligned. */
#define ARGS_AREA 144

/* A path of trampoline t (XR_T_ENTRY or XR_T_EXIT) keeping `vec` (q or
 * sve). After FULL_SAVE the CFA follows x29, the frame's bottom (the SVE
 * copy's SVE_SAVE says so itself), so the struct below it needs no CFI of
 * its own. The sled's stack pointer is that of the instrumented function
 * at the sled: x29 + FULL_FRAME + the 16 bytes the sled pushed. */
.macro ARGS_PATH t, vec, label
\label:
        FULL_SAVE \vec
        .ifc \vec, q
        .cfi_def_cfa x29, 16+FULL_FRAME
        .endif
        sub sp, sp, #ARGS_AREA
        .if \t == XR_T_ENTRY
        stp x0, x1, [sp, #0]
        stp x2, x3, [sp, #16]
        stp x4, x5, [sp, #32]
        stp x6, x7, [sp, #48]
        stp d0, d1, [sp, #64]
        stp d2, d3, [sp, #80]
        stp d4, d5, [sp, #96]
        stp d6, d7, [sp, #112]
        .else
        stp x0, x1, [sp, #0]
        stp xzr, xzr, [sp, #16]
        stp xzr, xzr, [sp, #32]
        stp xzr, xzr, [sp, #48]
        stp d0, d1, [sp, #64]
        stp xzr, xzr, [sp, #80]
        stp xzr, xzr, [sp, #96]
        stp xzr, xzr, [sp, #112]
        .endif
        add x9, x29, #16+FULL_FRAME
        str x9, [sp, #128]
        adrp x16, xr_args_hook
        ldr x16, [x16, #:lo12:xr_args_hook]
        cbz x16, 9f
        mov w0, w17
        mov w1, #\t
        mov x2, sp
        blr x16
9:      add sp, sp, #ARGS_AREA
        .ifc \vec, q
        .cfi_def_cfa sp, 16+FULL_FRAME
        .endif
        FULL_RESTORE \vec
        ret
.endm

.macro ARGS_TRAMPOLINE name, t
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        SLED_FRAME_CFI
        adrp x16, xr_args_dispatch
        ldr x16, [x16, #:lo12:xr_args_dispatch+8*\t]
        br x16
        ARGS_PATH \t, q, .L\name\()_full
        ARGS_PATH \t, sve, .L\name\()_full_sve
        .cfi_endproc
        .size \name, .-\name
.endm

ARGS_TRAMPOLINE xr_args_entry_trampoline, XR_T_ENTRY
ARGS_TRAMPOLINE xr_args_exit_trampoline, XR_T_EXIT

/* xr_args_paths[t][XR_PATH_*] for t = XR_T_ENTRY, XR_T_EXIT: the copies by
 * the numbers of the usual full paths (arch_aarch64.h). NONE and LEAN have
 * no copy of their own here: they hold the q one, never chosen. */
.macro ARGS_PATHS t, name
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_NONE, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_LEAN, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL, \name\()_full
        XR_TABLE_ENTRY xr_args_paths, XR_ARCH_PATH_COUNT*\t+XR_PATH_FULL_SVE, \name\()_full_sve
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

/* The copy each trampoline branches to: the q one until core/patch
 * chooses (before the first sled can come here). */
        .data
        .p2align 4
        .globl xr_args_dispatch
        .hidden xr_args_dispatch
        .type xr_args_dispatch,@object
xr_args_dispatch:
        XR_TABLE_ENTRY xr_args_dispatch, XR_T_ENTRY, .Lxr_args_entry_trampoline_full
        XR_TABLE_ENTRY xr_args_dispatch, XR_T_EXIT, .Lxr_args_exit_trampoline_full
        XR_TABLE_END xr_args_dispatch, 2

        .section .note.GNU-stack,"",@progbits
