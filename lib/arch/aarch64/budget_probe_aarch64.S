/* The overhead budget's probe of one event's cost on this CPU (arch.h:
 * xr_arch_probe_events, xr_arch_probe_bare).
 *
 * xr_arch_probe_events(n) does what a patched entry sled does n times
 * (patch_aarch64.c): push x0 and x30, load the id into w17 from a literal,
 * `bl` a trampoline, pop x0 and x30. The trampoline is a private copy of
 * the real ones: an indirect branch through its own dispatch word, then
 * the lean entry path of trampoline_macros_aarch64.inc, whose handler table
 * holds in its arg0 slot a handler that returns at once.
 * xr_arch_probe_bare(n) runs the loop alone (an unpatched sled is a branch
 * over its nops). The difference is the sled, the trampoline and the
 * handler's call and return: what an event costs beyond the handler's own
 * work. The loop counter lives in x0, which the sled itself keeps. */
#include "trampoline_macros_aarch64.inc"

        .text
        .p2align 4
        .type probe_noop_handler,@function
probe_noop_handler:
        .cfi_startproc
        ret
        .cfi_endproc
        .size probe_noop_handler, .-probe_noop_handler

        .p2align 4
        .type probe_trampoline,@function
probe_trampoline:
        .cfi_startproc
        SLED_FRAME_CFI
        adrp x16, probe_dispatch
        ldr x16, [x16, #:lo12:probe_dispatch]
        br x16
.Lprobe_lean:
        LEAN_ENTRY_LIKE_PATH probe_handlers, XR_T_ENTRY
        .cfi_endproc
        .size probe_trampoline, .-probe_trampoline

        .globl xr_arch_probe_events
        .hidden xr_arch_probe_events
        .type xr_arch_probe_events,@function
        .p2align 4
xr_arch_probe_events:
        .cfi_startproc
        cbz x0, 2f
1:      stp x0, x30, [sp, #-16]!
        ldr w17, .Lprobe_id
        bl probe_trampoline
        ldp x0, x30, [sp], #16
        subs x0, x0, #1
        b.ne 1b
2:      ret
        .p2align 2
.Lprobe_id:
        .word 1
        .cfi_endproc
        .size xr_arch_probe_events, .-xr_arch_probe_events

        .globl xr_arch_probe_bare
        .hidden xr_arch_probe_bare
        .type xr_arch_probe_bare,@function
        .p2align 4
xr_arch_probe_bare:
        .cfi_startproc
        cbz x0, 2f
1:      subs x0, x0, #1
        b.ne 1b
2:      ret
        .cfi_endproc
        .size xr_arch_probe_bare, .-xr_arch_probe_bare

/* The probe's dispatch word and handler table (laid out as
 * xr_handler_lean: XR_SLOT_COUNT pointers), written by nobody. */
        .section .data.rel.ro,"aw",@progbits
        .p2align 3
probe_dispatch:
        .quad .Lprobe_lean
        .p2align 3
probe_handlers:
        XR_TABLE_ENTRY probe_handlers, XR_SLOT_ARG0, probe_noop_handler
        XR_TABLE_ENTRY probe_handlers, XR_SLOT_ARG1, 0
        XR_TABLE_ENTRY probe_handlers, XR_SLOT_CUSTOM, 0
        XR_TABLE_ENTRY probe_handlers, XR_SLOT_TYPED, 0
        XR_TABLE_END probe_handlers, XR_SLOT_COUNT

        .section .note.GNU-stack,"",@progbits
