/* Register-preservation probes for regs.c. Hand-made "instrumented"
 * functions (their sleds and xray_instr_map entries are written here, so
 * nothing but a sled runs between loading and storing the registers), a
 * driver that loads every register from st_in, calls a probe and stores every
 * register to st_out, and handler helpers that clobber what they may.
 *
 * st layout: 0 rax, 8 rbx, 16 rcx, 24 rdx, 32 rsi, 40 rdi, 48 rbp, 56..112
 * r8..r15, 120 rflags, 128 vector registers 0-15 (32 bytes each), 640 st0
 * (80-bit), 656 x87 status word. Options: use_avx, use_x87. */

        .bss
        .p2align 6
        .globl st_in, st_out, use_avx, use_x87, probe_target
st_in:  .zero 704
st_out: .zero 704
use_avx: .zero 8
use_x87: .zero 8
probe_target: .zero 8
saved_rsp: .zero 8

        .text
/* void run_probe(void (*probe)(void)) */
        .globl run_probe
        .type run_probe,@function
        .p2align 4
run_probe:
        pushq %rbp
        pushq %rbx
        pushq %r12
        pushq %r13
        pushq %r14
        pushq %r15
        subq $8, %rsp                   /* rsp = 0 mod 16 at the call */
        movq %rdi, probe_target(%rip)
        movq %rsp, saved_rsp(%rip)
        cmpq $0, use_x87(%rip)
        je 1f
        fldt st_in+640(%rip)
1:      cmpq $0, use_avx(%rip)
        je 2f
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vmovdqu st_in+128+32*\r(%rip), %ymm\r
        .endr
        jmp 3f
2:
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        movdqu st_in+128+32*\r(%rip), %xmm\r
        .endr
3:      movq st_in+0(%rip), %rax
        movq st_in+8(%rip), %rbx
        movq st_in+16(%rip), %rcx
        movq st_in+24(%rip), %rdx
        movq st_in+32(%rip), %rsi
        movq st_in+40(%rip), %rdi
        movq st_in+48(%rip), %rbp
        movq st_in+56(%rip), %r8
        movq st_in+64(%rip), %r9
        movq st_in+72(%rip), %r10
        movq st_in+80(%rip), %r11
        movq st_in+88(%rip), %r12
        movq st_in+96(%rip), %r13
        movq st_in+104(%rip), %r14
        movq st_in+112(%rip), %r15
        pushq st_in+120(%rip)
        popfq
        call *probe_target(%rip)
        pushfq
        popq st_out+120(%rip)
        movq %rax, st_out+0(%rip)
        movq %rbx, st_out+8(%rip)
        movq %rcx, st_out+16(%rip)
        movq %rdx, st_out+24(%rip)
        movq %rsi, st_out+32(%rip)
        movq %rdi, st_out+40(%rip)
        movq %rbp, st_out+48(%rip)
        movq %r8, st_out+56(%rip)
        movq %r9, st_out+64(%rip)
        movq %r10, st_out+72(%rip)
        movq %r11, st_out+80(%rip)
        movq %r12, st_out+88(%rip)
        movq %r13, st_out+96(%rip)
        movq %r14, st_out+104(%rip)
        movq %r15, st_out+112(%rip)
        cmpq $0, use_avx(%rip)
        je 2f
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vmovdqu %ymm\r, st_out+128+32*\r(%rip)
        .endr
        vzeroupper
        jmp 3f
2:
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        movdqu %xmm\r, st_out+128+32*\r(%rip)
        .endr
3:      fnstsw st_out+656(%rip)
        cmpq $0, use_x87(%rip)
        je 4f
        fstpt st_out+640(%rip)
4:      cmpq saved_rsp(%rip), %rsp
        jne 5f
        addq $8, %rsp
        popq %r15
        popq %r14
        popq %r13
        popq %r12
        popq %rbx
        popq %rbp
        ret
5:      ud2                              /* rsp not restored */
        .size run_probe, .-run_probe

/* Probes: nothing but a sled (and a ret or a tail jmp). Unpatched sleds are
 * the compilers' exact bytes (LLVM's X86MCInstLower.cpp). */
.macro ENTRY_SLED label
        .p2align 1
\label:
        .byte 0xEB, 0x09, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
.endm

        .globl probe_entry, probe_log_args, probe_tail, probe_exit
        .p2align 4
        .type probe_entry,@function
probe_entry:
        ENTRY_SLED .Lsled_entry
        ret
        .size probe_entry, .-probe_entry

        .p2align 4
        .type probe_log_args,@function
probe_log_args:
        ENTRY_SLED .Lsled_log_args
        ret
        .size probe_log_args, .-probe_log_args

        .p2align 4
        .type probe_tail,@function
probe_tail:
        ENTRY_SLED .Lsled_tail
        jmp plain_return
        .size probe_tail, .-probe_tail

        .p2align 4
        .type plain_return,@function
plain_return:
        ret
        .size plain_return, .-plain_return

        .p2align 4
        .type probe_exit,@function
probe_exit:
.Lsled_exit:
        .byte 0xC3, 0x2E, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
        .size probe_exit, .-probe_exit

/* A custom event sled as clang emits it (jmp over the body when off; the
 * body pushes rdi/rsi, moves the payload's pointer and size there, calls
 * the trampoline, pops): here the pointer and size are what rdi and rsi
 * hold, so every register but those two reaches the trampoline as loaded. */
        .globl probe_custom
        .p2align 4
        .type probe_custom,@function
probe_custom:
.Lsled_custom:
        .byte 0xEB, 0x0F
        pushq %rdi
        pushq %rsi
        .byte 0x48, 0x89, 0xFF           /* movq %rdi, %rdi */
        .byte 0x48, 0x89, 0xF6           /* movq %rsi, %rsi */
        call __xray_CustomEvent
        popq %rsi
        popq %rdi
        ret
        .size probe_custom, .-probe_custom

/* The map: version 2, addresses relative to each field. Ids in this order:
 * 1 probe_entry, 2 probe_log_args, 3 probe_tail, 4 probe_exit, 5
 * probe_custom. */
.macro MAP_ENTRY sled, function, kind
        .quad \sled - .
        .quad \function - .
        .byte \kind, 1, 2
        .zero 13
.endm
        .section xray_instr_map,"a",@progbits
        MAP_ENTRY .Lsled_entry, probe_entry, 0
        MAP_ENTRY .Lsled_log_args, probe_log_args, 3
        MAP_ENTRY .Lsled_tail, probe_tail, 2
        MAP_ENTRY .Lsled_exit, probe_exit, 1
        MAP_ENTRY .Lsled_custom, probe_custom, 4

        .text
/* Not a sled: calls xr_call_preserving_vectors(clobber_everything, 0) the
 * way a lean handler's slow path would; vectors and x87 must survive. */
        .globl probe_call_preserving_vectors
        .type probe_call_preserving_vectors,@function
        .p2align 4
probe_call_preserving_vectors:
        subq $8, %rsp
        leaq clobber_everything(%rip), %rdi
        xorl %esi, %esi
        call xr_call_preserving_vectors
        addq $8, %rsp
        ret
        .size probe_call_preserving_vectors, .-probe_call_preserving_vectors

/* void clobber_everything(void): what any C handler may do: every
 * caller-saved general register, all vector registers (whole ymm with AVX),
 * all eight x87 registers (pushed and popped: the ABI gives every callee an
 * empty x87 stack, so the exit path moves a live long double out of it), and
 * each of the six status flags set to the opposite of its value in st_in. */
        .globl clobber_everything
        .type clobber_everything,@function
        .p2align 4
clobber_everything:
        movq $-1, %rax
        movq %rax, %rcx
        movq %rax, %rdx
        movq %rax, %rsi
        movq %rax, %rdi
        movq %rax, %r8
        movq %rax, %r9
        movq %rax, %r10
        movq %rax, %r11
        cmpq $0, use_avx(%rip)
        je 1f
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vpcmpeqd %ymm\r, %ymm\r, %ymm\r
        .endr
        jmp 2f
1:
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        pcmpeqd %xmm\r, %xmm\r
        .endr
2:      .rept 8
        fldz
        .endr
        .rept 8
        fstp %st(0)
        .endr
        pushq st_in+120(%rip)            /* every status flag inverted: */
        xorq $0x8D5, (%rsp)              /* CF PF AF ZF SF OF */
        popfq
        movq $-1, %rax                   /* (mov leaves the flags alone) */
        ret
        .size clobber_everything, .-clobber_everything

/* Lean-style handler: records (id, type) and clobbers every caller-saved
 * general register and the arithmetic flags, touching no vector or x87
 * register (the contract of lean handlers). */
        .globl lean_handler, lean_calls, lean_last_id, lean_last_type, lean_last_arg
        .type lean_handler,@function
        .p2align 4
lean_handler:
        incq lean_calls(%rip)
        movl %edi, lean_last_id(%rip)
        movl %esi, lean_last_type(%rip)
        movq %rdx, lean_last_arg(%rip)
        movq $-2, %rax
        movq %rax, %rcx
        movq %rax, %rdx
        movq %rax, %rsi
        movq %rax, %rdi
        movq %rax, %r8
        movq %rax, %r9
        movq %rax, %r10
        movq %rax, %r11
        xorl %eax, %eax
        ret
        .size lean_handler, .-lean_handler
        .bss
lean_calls: .zero 8
lean_last_id: .zero 4
lean_last_type: .zero 4
lean_last_arg: .zero 8

        .section .note.GNU-stack,"",@progbits
