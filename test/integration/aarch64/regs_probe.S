/* Probes for regs.c: each loads every register the contract covers from
 * st_in, enters a trampoline exactly as a patched sled does, and stores the
 * registers to st_out. State layout (struct state in regs.c): x0-x18 at 0,
 * NZCV 152, FPCR 160, FPSR 168, q0-q31 at 176. x16 (the sled's scratch)
 * and x18 (the platform register) are neither loaded nor compared. */
        .arch_extension sve /* run_probe_sve and clobber_sve: SVE CPUs only */
        .text

/* The probes' frame: x19-x28 and d8-d15 kept for the caller, whose FP
 * controls are set back to their defaults on the way out. */
.macro PROBE_FRAME_OPEN
        stp x29, x30, [sp, #-160]!
        mov x29, sp
        stp x19, x20, [sp, #16]
        stp x21, x22, [sp, #32]
        stp x23, x24, [sp, #48]
        stp x25, x26, [sp, #64]
        stp x27, x28, [sp, #80]
        stp d8, d9, [sp, #96]
        stp d10, d11, [sp, #112]
        stp d12, d13, [sp, #128]
        stp d14, d15, [sp, #144]
.endm
.macro PROBE_FRAME_CLOSE
        msr fpsr, xzr
        msr fpcr, xzr
        ldp x19, x20, [sp, #16]
        ldp x21, x22, [sp, #32]
        ldp x23, x24, [sp, #48]
        ldp x25, x26, [sp, #64]
        ldp x27, x28, [sp, #80]
        ldp d8, d9, [sp, #96]
        ldp d10, d11, [sp, #112]
        ldp d12, d13, [sp, #128]
        ldp d14, d15, [sp, #144]
        ldp x29, x30, [sp], #160
        ret
.endm
/* x19 = st_in; NZCV, FPCR and FPSR from it. */
.macro LOAD_CONTROLS
        adrp x19, st_in
        add x19, x19, :lo12:st_in
        ldr x9, [x19, #152]
        msr nzcv, x9
        ldr x9, [x19, #160]
        msr fpcr, x9
        ldr x9, [x19, #168]
        msr fpsr, x9
.endm
/* x0-x15 and x17 from st_in (x19), the probe (x20) entered as a sled
 * enters it, then x0-x15, x17, NZCV, FPCR, FPSR to st_out (x19 = st_out). */
.macro CALL_AND_STORE
        mov x16, x20
        ldr x17, [x19, #8*17]
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        ldr x\r, [x19, #8*\r]
        .endr
        blr x16
        adrp x19, st_out
        add x19, x19, :lo12:st_out
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17
        str x\r, [x19, #8*\r]
        .endr
        mrs x9, nzcv
        str x9, [x19, #152]
        mrs x9, fpcr
        str x9, [x19, #160]
        mrs x9, fpsr
        str x9, [x19, #168]
.endm

/* void run_probe(void (*probe)(void)) */
        .globl run_probe
        .type run_probe,@function
        .p2align 4
run_probe:
        PROBE_FRAME_OPEN
        mov x20, x0
        LOAD_CONTROLS
        add x9, x19, #176
        .irp q, 0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30
        ldr q\q, [x9, #16*\q]
        .endr
        .irp q, 1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31
        ldr q\q, [x9, #16*\q]
        .endr
        CALL_AND_STORE
        add x9, x19, #176
        .irp q, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        str q\q, [x9, #16*\q]
        .endr
        PROBE_FRAME_CLOSE
        .size run_probe, .-run_probe

/* void run_probe_sve(void (*probe)(void)): as run_probe, but with z0-z31,
 * p0-p15 and FFR whole, from sve_in and to sve_out (struct sve_state in
 * regs.c: z at 0, 32 vector lengths; p at 32 VL, 16 predicate lengths;
 * FFR after them). The q registers are z's low halves: not loaded apart. */
        .globl run_probe_sve
        .type run_probe_sve,@function
        .p2align 4
run_probe_sve:
        PROBE_FRAME_OPEN
        mov x20, x0
        adrp x19, sve_in
        add x19, x19, :lo12:sve_in
        addvl x9, x19, #31               /* #32 is out of range */
        addvl x9, x9, #1
        ldr p0, [x9, #16, mul vl]
        wrffr p0.b
        .irp p, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        ldr p\p, [x9, #\p, mul vl]
        .endr
        .irp z, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        ldr z\z, [x19, #\z, mul vl]
        .endr
        LOAD_CONTROLS
        CALL_AND_STORE
        adrp x19, sve_out
        add x19, x19, :lo12:sve_out
        .irp z, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        str z\z, [x19, #\z, mul vl]
        .endr
        addvl x9, x19, #31               /* #32 is out of range */
        addvl x9, x9, #1
        .irp p, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        str p\p, [x9, #\p, mul vl]
        .endr
        rdffr p0.b
        str p0, [x9, #16, mul vl]
        PROBE_FRAME_CLOSE
        .size run_probe_sve, .-run_probe_sve

/* What a C function may change of the SVE state: every z register beyond
 * d8-d15, every predicate, FFR. uint64_t sve_vl(void): the vector length. */
        .globl clobber_sve
        .type clobber_sve,@function
        .p2align 4
clobber_sve:
        mov x9, #0xbeef
        ptrue p0.d
        index z30.d, #0, #1
        cmpne p1.d, p0/z, z30.d, #0      /* every element but the first */
        .irp z, 8,9,10,11,12,13,14,15
        mov z\z\().d, p1/m, x9          /* d8-d15 kept, as the ABI says */
        .endr
        .irp z, 0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        mov z\z\().d, x9
        .endr
        .irp p, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        pfalse p\p\().b
        .endr
        setffr
        ret
        .size clobber_sve, .-clobber_sve

        .globl sve_vl
        .type sve_vl,@function
sve_vl:
        rdvl x0, #1
        ret
        .size sve_vl, .-sve_vl

/* A patched call sled: x17 already holds the id (loaded from st_in).
 * With XR_REF, compiler-rt 14's: the id and the trampoline's address are
 * literals after the blr (its trampolines return 12 bytes past it), the id
 * goes in w0 (st_in's x17 holds the same, 0x4321). */
.macro CALL_SLED name, tramp
        .globl \name
        .type \name,@function
        .p2align 4
\name:
        stp x0, x30, [sp, #-16]!
#ifdef XR_REF
        ldr w0, 1f
        ldr x16, 2f
        blr x16
1:      .word 0x4321
2:      .quad \tramp
#else
        bl \tramp
#endif
        ldp x0, x30, [sp], #16
        ret
        .size \name, .-\name
.endm
        CALL_SLED probe_entry, __xray_FunctionEntry
        CALL_SLED probe_exit, __xray_FunctionExit
        CALL_SLED probe_tail, __xray_FunctionTailExit
#ifndef XR_REF
        CALL_SLED probe_log_args, __xray_ArgLoggerEntry

/* xr_call_preserving_vectors(clobber_everything_sve_too, 0) as a lean
 * handler's slow path calls it (a C call: only the vector state is kept). */
        .globl probe_cpv
        .type probe_cpv,@function
        .p2align 4
probe_cpv:
        stp x29, x30, [sp, #-16]!
        adrp x0, cpv_clobber
        add x0, x0, :lo12:cpv_clobber
        mov x1, #0
        bl xr_call_preserving_vectors
        ldp x29, x30, [sp], #16
        ret
        .size probe_cpv, .-probe_cpv

/* Event sleds as clang 19 emits them (the function keeps x30 itself). */
        .globl probe_custom
        .type probe_custom,@function
        .p2align 4
probe_custom:
        stp x29, x30, [sp, #-16]!
        stp x0, x1, [sp, #-16]!
        bl __xray_CustomEvent
        ldp x0, x1, [sp], #16
        ldp x29, x30, [sp], #16
        ret
        .size probe_custom, .-probe_custom

        .globl probe_typed
        .type probe_typed,@function
        .p2align 4
probe_typed:
        stp x29, x30, [sp, #-16]!
        stp x0, x1, [sp, #-32]!
        str x2, [sp, #16]
        bl __xray_TypedEvent
        ldr x2, [sp, #16]
        ldp x0, x1, [sp], #32
        ldp x29, x30, [sp], #16
        ret
        .size probe_typed, .-probe_typed
#endif

/* Everything a C function may change (AAPCS64): x0-x17, v0-v7 and v16-v31
 * whole, the upper halves of v8-v15, NZCV, FPSR; and FPCR's rounding mode,
 * which a function may change on purpose (fesetround). */
        .globl clobber_everything
        .type clobber_everything,@function
        .p2align 4
clobber_everything:
        mov x9, #0xdead
        .irp q, 0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        dup v\q\().2d, x9
        .endr
        .irp q, 8,9,10,11,12,13,14,15
        mov v\q\().d[1], x9
        .endr
        mov x9, #0xf0000000
        msr nzcv, x9
        mov x9, #0x9f
        msr fpsr, x9
        mov x9, #0xc00000                /* RMode = round towards zero */
        msr fpcr, x9
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
        mov x\r, #0xbad
        .endr
        ret
        .size clobber_everything, .-clobber_everything

/* A handler as the built-in modes' are (general registers only): records
 * its arguments, then clobbers x0-x17 and NZCV. */
        .globl lean_handler
        .type lean_handler,@function
        .p2align 4
lean_handler:
        adrp x9, lean_args
        add x9, x9, :lo12:lean_args
        stp x0, x1, [x9]
        stp x2, x3, [x9, #16]
        ldr x10, [x9, #32]
        add x10, x10, #1
        str x10, [x9, #32]
        mov x9, #0x60000000
        msr nzcv, x9
        .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
        mov x\r, #0xbad
        .endr
        ret
        .size lean_handler, .-lean_handler

        .section .note.GNU-stack,"",@progbits
