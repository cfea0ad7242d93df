/* Hand-made "instrumented" functions for sled_order.c, laid out on four
 * pages P0..P3 of their own, with an xray_instr_map that lists them out of
 * address order (the patcher must not assume sorted sleds):
 *   fn_d       P3 + 0x10                                    (map first: id 1)
 *   fn_c       P1 + 0x800                                   (id 2)
 *   fn_cross   P0 + 0xff0: its exit sled crosses into P1    (id 3)
 *   fn_a       P0 + 0x100                                   (id 4)
 * So the runs are P3, then P1, then P0 + P1: the last reaches P1 only
 * through the crossing sled's last bytes. P2 holds no sled: its protection
 * must stay untouched. Each function is an entry sled followed by an exit
 * sled (a `ret` until patched), the compilers' exact bytes (LLVM's
 * X86MCInstLower.cpp). */

.macro FUNCTION name, sled_entry, sled_exit
        .globl \name
        .type \name,@function
\name:
\sled_entry:
        .byte 0xEB, 0x09, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
        nop                              /* sleds are 2-byte aligned */
\sled_exit:
        .byte 0xC3, 0x2E, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
        .size \name, .-\name
.endm

        .section .text.sled_order,"ax",@progbits
        .p2align 12
        .globl sled_pages
sled_pages:                              /* P0 */
        .org 0x100, 0xCC
        FUNCTION fn_a, .La_entry, .La_exit
        .org 0xff0, 0xCC
        .globl fn_cross
        .type fn_cross,@function
fn_cross:
.Lx_entry:
        .byte 0xEB, 0x09, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
        nop                              /* sleds are 2-byte aligned */
.Lx_exit:                                /* P0 + 0xffc .. P1 + 0x6 */
        .byte 0xC3, 0x2E, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
        .size fn_cross, .-fn_cross
        .org 0x1800, 0xCC                /* P1 */
        FUNCTION fn_c, .Lc_entry, .Lc_exit
        .org 0x3010, 0xCC                /* P3 (P2: only int3 filler) */
        FUNCTION fn_d, .Ld_entry, .Ld_exit
        .org 0x4000, 0xCC

/* Version 2 entries: addresses relative to each field. */
.macro MAP_ENTRY sled, function, kind
        .quad \sled - .
        .quad \function - .
        .byte \kind, 1, 2
        .zero 13
.endm
        .section xray_instr_map,"a",@progbits
        MAP_ENTRY .Ld_entry, fn_d, 0
        MAP_ENTRY .Ld_exit, fn_d, 1
        MAP_ENTRY .Lc_entry, fn_c, 0
        MAP_ENTRY .Lc_exit, fn_c, 1
        MAP_ENTRY .Lx_entry, fn_cross, 0
        MAP_ENTRY .Lx_exit, fn_cross, 1
        MAP_ENTRY .La_entry, fn_a, 0
        MAP_ENTRY .La_exit, fn_a, 1

        .section .note.GNU-stack,"",@progbits
