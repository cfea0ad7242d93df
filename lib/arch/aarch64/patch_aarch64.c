/* Sled encodings for AArch64 and the order in which a live sled is
 * rewritten.
 *
 * The compiler's sleds (clang 14-19; sizes in arch_aarch64.h):
 *   entry / exit / tail / log-args (32 B): b #32, then 7 nops. An exit sled
 *     sits just before the `ret`, a tail sled just before the tail `b`.
 *   custom event (24 B): b #24, then stp x0, x1 / moves / bl
 *     __xray_CustomEvent / ldp; typed event (36 B): b #36, likewise.
 *
 * A call sled as this runtime writes it (words at +0, +4, ... +28):
 *   off:  b #32     (the compiler's bytes; the body below may stay)
 *   on:   nop
 *         stp x0, x30, [sp, #-16]!     keep the link register (bl sets it)
 *         ldr w17, .+20                the function id, from +28
 *         bl <trampoline>              this object's own (+-128 MiB)
 *         ldp x0, x30, [sp], #16
 *         b #12                        to the end of the sled
 *         nop
 *         .word <id>
 * Event sleds: on, the first word is a nop; off, the compiler's branch.
 *
 * Why the first word toggles between `b` and `nop`: the Arm ARM (its
 * section "Concurrent modification and execution of instructions") lets one
 * thread rewrite an instruction another may be executing, with no
 * synchronization on the executing side, only when both the old and the new
 * instruction are among B, BL, BRK, HVC, ISB, NOP, SMC, SVC (more with some
 * extensions); for any other pair what a concurrent thread executes is
 * CONSTRAINED UNPREDICTABLE. compiler-rt's sled puts `stp` in that word,
 * outside the list; ours keeps B <-> NOP, so a thread running the sled
 * while it is patched executes either the old branch or the new nop, as
 * the architecture promises. The cost: one `b` more at the end than
 * compiler-rt's sled (nop, stp, ldr, bl, ldp, b), and a `bl` instead of
 * compiler-rt's `ldr x16, =address; blr x16`, hence each object's own
 * trampolines (dso_trampolines_aarch64.S) and a refusal for an executable
 * whose text is wider than 128 MiB (the sled is then left off and
 * patching reports failure).
 *
 * How a live sled is rewritten (other threads may be running it):
 *  1. While the first word is `b #32`, no thread can be inside +4..+31 for
 *     the first time, so the body is written with plain stores.
 *  2. The body is made visible to instruction fetch on every CPU: DC CVAU
 *     over its lines, DSB ISH, IC IVAU, DSB ISH (the Arm ARM's sequence
 *     for self-modifying code; the invalidation is broadcast to the inner
 *     shareable domain). Skipped where CTR_EL0 says IDC/DIC make it
 *     unnecessary.
 *  3. Only then the first word becomes `nop`, one aligned 32-bit store
 *     (single-copy atomic), followed by the same maintenance and an ISB for
 *     this thread. A CPU that fetches the new nop finds the new body, which
 *     reached the point of unification before the nop was stored (step 2).
 *     Another CPU may go on running the old `b` for a while; that is the
 *     sled still off, not a fault.
 *  4. Turning off is one 32-bit store of `b #32` and the maintenance. The
 *     body is left as it is: a thread still inside it (between the nop and
 *     the final b) must find it there. A sled's id never changes, and its
 *     trampoline only by retargeting (below), so a later re-patch that
 *     writes the body writes the very same words and such a thread is not
 *     affected by that either.
 *  5. Retargeting (argument capture sends a function's sleds to the
 *     argument trampolines and back while threads run them): the `bl` at
 *     +12 becomes a `bl` to the other trampoline with one aligned 32-bit
 *     store and the maintenance, the rest of the body as it is. BL is in
 *     the list above, so a thread running the sled meanwhile, or stopped
 *     inside it, executes the old `bl` or the new one, whole; both
 *     trampolines return to +16. No fence is needed (the retargeting's
 *     second step does nothing here).
 * Under qemu-user the cache operations are no-ops and qemu invalidates its
 * translations of a page when it is written, so the same order holds. */
#include "arch/arch.h"
#include "core/patch/patching.h"

#include "xray/xray_interface.h"

#include <string.h>

#define W_NOP 0xD503201Fu
#define W_B(words) (0x14000000u | (uint32_t)(words)) /* b #4*words */
#define W_STP_X0_X30_PRE 0xA9BF7BE0u  /* stp x0, x30, [sp, #-16]! */
#define W_LDR_W17_PLUS20 0x180000B1u  /* ldr w17, .+20 */
#define W_LDP_X0_X30_POST 0xA8C17BE0u /* ldp x0, x30, [sp], #16 */
#define W_BL 0x94000000u

/* Words +4..+28 of an enabled call sled at `sled` calling `target`; -1 when
 * the bl at +12 cannot reach it. */
static int call_sled_body(uint32_t body[7], uintptr_t sled, int32_t id, uintptr_t target) {
  int64_t rel = (int64_t)(target - (sled + 12));
  if (rel & 3 || rel < -(1LL << 27) || rel >= (1LL << 27))
    return -1;
  body[0] = W_STP_X0_X30_PRE;
  body[1] = W_LDR_W17_PLUS20;
  body[2] = W_BL | ((uint32_t)(rel >> 2) & 0x03FFFFFFu);
  body[3] = W_LDP_X0_X30_POST;
  body[4] = W_B(3);
  body[5] = W_NOP;
  body[6] = (uint32_t)id;
  return 0;
}

/* Code is written with plain stores in asm, never C stores: sanitizers
 * would instrument those, and ThreadSanitizer keeps no writable shadow for
 * text. An aligned 32-bit str is single-copy atomic. */
static void store_word(uintptr_t address, uint32_t w) {
  __asm__ volatile("str %w1, [%0]" : : "r"(address), "r"(w) : "memory");
}

/* Makes [start, end) visible to instruction fetch on every CPU (step 2). */
static void sync_code(uintptr_t start, uintptr_t end) {
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  if (!((ctr >> 28) & 1)) { /* IDC clear: clean to the point of unification */
    uintptr_t line = (uintptr_t)4 << ((ctr >> 16) & 0xF);
    for (uintptr_t a = start & ~(line - 1); a < end; a += line)
      __asm__ volatile("dc cvau, %0" : : "r"(a) : "memory");
  }
  __asm__ volatile("dsb ish" ::: "memory");
  if (!((ctr >> 29) & 1)) { /* DIC clear: invalidate the instruction cache */
    uintptr_t line = (uintptr_t)4 << (ctr & 0xF);
    for (uintptr_t a = start & ~(line - 1); a < end; a += line)
      __asm__ volatile("ic ivau, %0" : : "r"(a) : "memory");
    __asm__ volatile("dsb ish" ::: "memory");
  }
  __asm__ volatile("isb" ::: "memory");
}

static uint32_t load_word(uintptr_t address) {
  uint32_t w;
  __asm__ volatile("ldr %w0, [%1]" : "=r"(w) : "r"(address) : "memory");
  return w;
}

static void set_first_word(uintptr_t address, uint32_t w) {
  store_word(address, w);
  sync_code(address, address + 4);
}

static int patch_call_sled(const struct xr_sled *sled, int32_t id,
                           const uintptr_t t[XR_T_CALL_COUNT], bool enable) {
  if (!enable) {
    set_first_word(sled->address, W_B(XR_ARCH_CALL_SLED_BYTES / 4));
    return 0;
  }
  uint32_t body[7];
  if (call_sled_body(body, sled->address, id, t[sled->kind]) != 0)
    return -1;
  for (int i = 0; i < 7; i++)
    store_word(sled->address + 4 + 4 * (uintptr_t)i, body[i]);
  sync_code(sled->address + 4, sled->address + XR_ARCH_CALL_SLED_BYTES);
  set_first_word(sled->address, W_NOP); /* after the body: step 3 */
  return 0;
}

static bool is_call_kind(uint8_t kind) {
  return kind == ENTRY || kind == EXIT || kind == TAIL || kind == LOG_ARGS_ENTRY;
}

/* Step 5, or the whole job when the body is not one of ours yet (no
 * thread can be inside it) or already calls the wanted trampoline. */
int xr_patch_sled_retarget(const struct xr_sled *sled, int32_t function_id,
                           const uintptr_t trampolines[XR_T_CALL_COUNT]) {
  uintptr_t a = sled->address;
  if (a & 3 || !is_call_kind(sled->kind))
    return xr_patch_sled(sled, function_id, trampolines, true);
  uint32_t body[7];
  if (call_sled_body(body, a, function_id, trampolines[sled->kind]) != 0)
    return -1;
  bool ours = true, same = true;
  for (int i = 0; i < 7; i++) {
    uint32_t w = load_word(a + 4 + 4 * (uintptr_t)i);
    same = same && w == body[i];
    ours = ours && (i == 2 || w == body[i]);
  }
  if (!ours)
    return xr_patch_sled(sled, function_id, trampolines, true);
  if (!same) {
    store_word(a + 12, body[2]);
    sync_code(a + 12, a + 16);
  }
  if (load_word(a) != W_NOP)
    set_first_word(a, W_NOP);
  return 0;
}

int xr_patch_sled_retarget_finish(const struct xr_sled *sled, int32_t function_id,
                                  const uintptr_t trampolines[XR_T_CALL_COUNT]) {
  (void)sled, (void)function_id, (void)trampolines; /* one step is enough here */
  return 0;
}

/* ldr x16, #8; br x16; .quad target, then the maintenance (the page is new,
 * but another CPU may have run other code at its address before). */
void xr_arch_jump_stub(void *at, uintptr_t target) {
  uint32_t *w = at;
  w[0] = 0x58000050u; /* ldr x16, .+8 */
  w[1] = 0xD61F0200u; /* br x16 */
  memcpy(&w[2], &target, sizeof target);
  sync_code((uintptr_t)at, (uintptr_t)at + XR_ARCH_JUMP_STUB_BYTES);
}

int xr_patch_sled(const struct xr_sled *sled, int32_t function_id,
                  const uintptr_t trampolines[XR_T_CALL_COUNT], bool enable) {
  if (sled->address & 3)
    return -1; /* instructions are 4-aligned: not a sled */
  switch (sled->kind) {
  case ENTRY:
  case EXIT:
  case TAIL:
  case LOG_ARGS_ENTRY:
    return patch_call_sled(sled, function_id, trampolines, enable);
  case CUSTOM_EVENT:
  case TYPED_EVENT:
    set_first_word(sled->address,
                   enable ? W_NOP : W_B(xr_arch_sled_size(sled->kind) / 4));
    return 0;
  default:
    return -1;
  }
}

/* clang gives a tail call's sled the kind EXIT too: the word after the
 * sled tells them apart, `ret` (RET Xn, RETAA, RETAB, or the AUTIASP /
 * AUTIBSP before one) or the tail call's branch. */
bool xr_sled_before_return(const struct xr_sled *sled) {
  if (sled->kind != EXIT)
    return false;
  uint32_t w = load_word(sled->address + XR_ARCH_CALL_SLED_BYTES);
  return (w & 0xFFFFFC1Fu) == 0xD65F0000u || w == 0xD65F0BFFu || w == 0xD65F0FFFu ||
         w == 0xD50323BFu || w == 0xD50323FFu;
}

/* Every kind's enabled form starts with a nop where the disabled one
 * branches over the sled. */
bool xr_sled_enabled(const struct xr_sled *sled) {
  return *(const volatile uint32_t *)sled->address == W_NOP;
}
