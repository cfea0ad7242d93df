/* A shared object's own trampolines (libxray-dso.a), one per call-sled kind.
 *
 * A patched sled is `call rel32`: it cannot reach the executable's
 * trampolines from a shared object loaded more than 2 GiB away. So each
 * object carries these four, hidden, and each is one indirect jump through
 * the object's GOT to the executable's trampoline of the same kind. The
 * jump reads memory only: it changes no register and no flag, so the
 * executable's trampoline starts in exactly the state a sled of the
 * executable would give it (r10d = packed id, the sled's return address on
 * the stack) and every event path (none, lean, full) is shared: the cost of
 * an event from a shared object is one well-predicted jump more. */
        .text

.macro FORWARD name, target
        .globl \name
        .hidden \name
        .type \name,@function
        .p2align 4
\name:
        .cfi_startproc
        jmp *\target@GOTPCREL(%rip)
        .cfi_endproc
        .size \name, .-\name
        .weak \target
.endm

        FORWARD xr_dso_entry, __xray_FunctionEntry
        FORWARD xr_dso_exit, __xray_FunctionExit
        FORWARD xr_dso_tail_exit, __xray_FunctionTailExit
        FORWARD xr_dso_log_args, __xray_ArgLoggerEntry

        .section .note.GNU-stack,"",@progbits
