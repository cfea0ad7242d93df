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
 * the slots (or with a runtime that does not) they hold the executable's
 * trampolines. The jump reads memory only: no register and no flag
 * changes, so the path starts in exactly the state a sled of the executable
 * gives it (r10d = packed id, the sled's return address on the stack). */
        .text

.macro FORWARD name, index
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        jmp *xr_dso_dispatch_slots+8*\index(%rip)
        .cfi_endproc
        .size \name, .-\name
.endm

        FORWARD xr_dso_entry, 0
        FORWARD xr_dso_exit, 1
        FORWARD xr_dso_tail_exit, 2
        FORWARD xr_dso_log_args, 3

        .section .note.GNU-stack,"",@progbits
