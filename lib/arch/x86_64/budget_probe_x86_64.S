/* The overhead budget's probe of one event's cost on this CPU (arch.h:
 * xr_arch_probe_events, xr_arch_probe_bare).
 *
 * xr_arch_probe_events(n) does what a function with a patched entry sled
 * does n times: `mov $id, %r10d; call` into a trampoline, from the
 * function's first instruction (rsp = 8 mod 16, so the trampoline arrives
 * at 0 mod 16 as from a sled). The trampoline is a private copy of the
 * real ones: an indirect jump through its own dispatch word, then the lean
 * entry path of trampoline_macros_x86_64.inc, whose handler table holds in
 * its arg0 slot a handler that returns at once. xr_arch_probe_bare(n) runs
 * the loop alone (an unpatched sled is a jump over its nops). The
 * difference is the sled, the trampoline and the handler's call and
 * return: what an event costs beyond the handler's own work.
 * The loop counter lives in rdi, which the lean path keeps, as it keeps
 * every argument register of the function a sled enters. */
#include "trampoline_macros_x86_64.inc"

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
        ARRIVAL_CFI XR_T_ENTRY
        jmp *probe_dispatch(%rip)
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
        testq %rdi, %rdi
        jz 2f
1:      movl $1, %r10d
        call probe_trampoline
        decq %rdi
        jnz 1b
2:      ret
        .cfi_endproc
        .size xr_arch_probe_events, .-xr_arch_probe_events

        .globl xr_arch_probe_bare
        .hidden xr_arch_probe_bare
        .type xr_arch_probe_bare,@function
        .p2align 4
xr_arch_probe_bare:
        .cfi_startproc
        testq %rdi, %rdi
        jz 2f
1:      decq %rdi
        jnz 1b
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
