/* Sled encodings for x86-64 (as LLVM's X86MCInstLower.cpp emits them and
 * compiler-rt's xray_x86_64.cpp patches them) and the order in which a live
 * sled is rewritten.
 *
 *   entry / log-args / tail, off:  EB 09 <9 bytes of nop>     jmp +9
 *   exit, off:                     C3 2E <9 bytes of nop>     ret
 *   any of them, on:               41 BA <id:4> E8|E9 <rel32:4>
 *                                  mov r10d, id; call|jmp trampoline
 *   custom event (17 B), off/on:   EB 0F ... / 66 90 ...      (v0 sleds: EB 14)
 *   typed event (22 B), off/on:    EB 14 ... / 66 90 ...
 *
 * How a live sled is rewritten (other threads may be running it):
 *  1. While the sled is off, no thread can be inside bytes 2..10: a thread
 *     either executes the 2-byte instruction at +0 (jump over the body, or
 *     ret) or never reaches the sled. So the body (id, opcode, rel32) can be
 *     written with plain stores in any order.
 *  2. Then bytes 0..1 become `41 BA` with ONE 16-bit store, after the body
 *     (x86 makes stores visible in program order; the "memory" clobbers keep
 *     the compiler from reordering them).
 *  3. Turning off is one 16-bit store of the original first two bytes. The
 *     body is left as it is: a thread preempted between the `mov` and the
 *     `call` (at +6) must still find the call there. A sled's id never
 *     changes, and its trampoline changes only by retargeting (below), so a
 *     later re-patch that writes the body blind writes the very same bytes
 *     and such a thread still finds the same call.
 *
 * What this relies on (compiler-rt relies on the same: a release-ordered
 * atomic 16-bit store of the first two bytes, body first):
 *  a. The 16-bit store is single-copy atomic as data: it is 2-aligned (the
 *     compilers put `.p2align 1` before every sled; xr_patch_sled refuses an
 *     odd address), and the SDM guarantees atomicity for a word aligned on a
 *     16-bit boundary.
 *  b. Instruction fetch sees it whole. Not an SDM promise: its protocol for
 *     cross-modifying code wants each executing CPU to run a serializing
 *     instruction between the store and the new code, which no XRay runtime
 *     can arrange for threads that may be anywhere. What holds on x86 and
 *     is relied on: instruction fetch is coherent with stores (a store
 *     snoops the line out of every instruction cache, decoded-uop cache and
 *     prefetch buffer), and fetch reads aligned blocks of 16 bytes or more
 *     within one line. Two bytes at an even address never cross a 16-byte
 *     boundary (nor a line), so a fetch reads both from before the store or
 *     both from after it: `EB 09` / `C3 2E` or `41 BA`, never one byte of
 *     each. A store crossing a 16-byte boundary could be fetched half-done,
 *     the two blocks being read separately: hence the odd-address check.
 *     The body may lie in the next line; its stores became visible first,
 *     so a CPU that fetches the new `41 BA` fetches the new body too.
 *  c. Either state is a whole, valid instruction stream, so a CPU that
 *     fetched or decoded the old bytes just before the store and executes
 *     them once more after it does no harm: the old jump skips a body it
 *     never reads, and a `mov` still in flight after unpatching finds its
 *     `call` (step 3).
 * No instruction-cache flush is needed on x86 (by b).
 *
 * Why not int3 first, as Linux's text_poke_bp does to stay within the SDM
 * (int3 at +0, sync every CPU, body, sync, first byte, sync): in a process
 * the int3 raises SIGTRAP, so the runtime would have to own SIGTRAP (which
 * the program, debuggers and sanitizers use) and emulate the sled in its
 * handler, and each sync is an IPI to every CPU running the process
 * (membarrier SYNC_CORE, Linux 4.16+). That would trade an assumption every
 * XRay runtime already makes for certain interference with the host
 * program.
 *
 * Retargeting (argument capture sends a function's sleds to the argument
 * trampolines and back while threads run it; core/patch calls the two
 * steps below over a batch of sleds, xr_quiesce_fence between them). A
 * thread stopped between the `mov` and the `call` (preempted there, or
 * interrupted, the membarrier IPI included) executes the call whenever it
 * resumes, off or not, so the rel32 it will fetch cannot simply be
 * rewritten: its four bytes lie at +7..+10, across a 16-byte fetch block
 * for sleds at 6 or 8 mod 16, where a fetch could take half of each.
 * Nothing relies on such a store being fetched whole:
 *  R1. The sled is turned off (as step 3), then bytes +6..+7 become
 *      `EB F8`, a jump back to +0, with one 16-bit store (2-aligned: within
 *      one block). A thread that fetches +6 now jumps to the sled's start,
 *      which is off, and leaves the sled as if it had been off (this one
 *      event is not recorded; r10 is scratch at every sled).
 *  R2. xr_quiesce_fence: every thread of the process that was running has
 *      been interrupted (and its pipeline refetches after the interrupt's
 *      return) and every other one is off its CPU; so no thread still
 *      holds the old `call` fetched before R1, and each fetches +6 again:
 *      `EB F8`.
 *  R3. The id and bytes +8..+10 are written (no thread executes them now:
 *      every fetch of +6 decodes the 2-byte jump), then +6..+7 become the
 *      opcode and the rel32's low byte with one 16-bit store (a CPU that
 *      fetches it fetches the bytes after it as stored before, as in b.),
 *      then the sled is turned on (step 2).
 * A sled whose byte +6 holds no call (never enabled: the compiler's nop)
 * has no thread inside it and is written as in steps 1-2; one whose body
 * already calls the wanted trampoline is only turned on. */
#include "arch/arch.h"
#include "core/patch/patching.h"

#include "xray/xray_interface.h"

#include <string.h>

#define OP_CALL 0xE8
#define OP_JMP 0xE9

/* First two bytes of each sled, little-endian as stored by one 16-bit store. */
#define BYTES_MOV_R10D 0xBA41u   /* 41 BA */
#define BYTES_JMP_9 0x09EBu      /* EB 09 */
#define BYTES_RET_NOP 0x2EC3u    /* C3 2E */
#define BYTES_NOP2 0x9066u       /* 66 90 */
#define BYTES_JMP_15 0x0FEBu     /* EB 0F */
#define BYTES_JMP_20 0x14EBu     /* EB 14 */
#define BYTES_JMP_TO_START 0xF8EBu /* EB F8 at +6 (retargeting): jmp -8, to +0 */

/* Code is written with plain x86 stores in asm, never C stores: sanitizers
 * would instrument those, and ThreadSanitizer keeps no writable shadow for
 * text (it faults). An aligned 2-byte mov is single-copy atomic, and x86
 * stores are release-ordered: the "memory" clobber keeps the compiler from
 * moving the body's stores after it. */
static void store_code_2(uintptr_t address, uint16_t bytes) {
  __asm__ volatile("movw %w1, (%0)" : : "r"(address), "r"(bytes) : "memory");
}

static void store_code_8(unsigned char *p, uint64_t v) {
  __asm__ volatile("movq %1, (%0)" : : "r"(p), "r"(v) : "memory");
}

static void store_code_1(unsigned char *p, uint8_t v) {
  __asm__ volatile("movb %b1, (%0)" : : "r"(p), "q"(v) : "memory");
}

/* The enabled body for target: bytes 2..9 (id, opcode, rel32 bits 0..23)
 * in *body, byte 10 (rel32 bits 24..31) in *last; false when out of
 * reach. */
static bool call_body(const struct xr_sled *sled, int32_t id, uintptr_t target, uint64_t *body,
                      uint8_t *last) {
  int64_t rel = (int64_t)(target - (sled->address + XR_ARCH_CALL_SLED_BYTES));
  if (rel < INT32_MIN || rel > INT32_MAX)
    return false;
  uint32_t rel32 = (uint32_t)(int32_t)rel;
  uint64_t opcode = sled->kind == EXIT ? OP_JMP : OP_CALL;
  *body = (uint64_t)(uint32_t)id | opcode << 32 | (uint64_t)(rel32 & 0xFFFFFFu) << 40;
  *last = (uint8_t)(rel32 >> 24);
  return true;
}

static int patch_call_sled(const struct xr_sled *sled, int32_t id,
                           const uintptr_t t[XR_T_CALL_COUNT], bool enable) {
  unsigned char *p = (unsigned char *)sled->address;
  if (!enable) {
    store_code_2(sled->address, sled->kind == EXIT ? BYTES_RET_NOP : BYTES_JMP_9);
    return 0;
  }
  /* The body as integers (no byte buffer: a store-forwarding stall per
   * sled otherwise). */
  uint64_t want;
  uint8_t last;
  if (!call_body(sled, id, t[sled->kind], &want, &last)) /* a call kind: see xr_patch_sled */
    return -1;
  store_code_8(p + 2, want); /* written blind: reading first would fault */
  store_code_1(p + 10, last); /* the page in once for the read, again here */
  store_code_2(sled->address, BYTES_MOV_R10D); /* release: after the body */
  return 0;
}

/* Plain loads of code (asm, as the stores). */
static uint16_t load_code_2(uintptr_t a) {
  uint16_t v;
  __asm__ volatile("movw (%1), %0" : "=r"(v) : "r"(a) : "memory");
  return v;
}
static uint64_t load_code_8(uintptr_t a) {
  uint64_t v;
  __asm__ volatile("movq (%1), %0" : "=r"(v) : "r"(a) : "memory");
  return v;
}

static bool is_call_kind(uint8_t kind) {
  return kind == ENTRY || kind == EXIT || kind == TAIL || kind == LOG_ARGS_ENTRY;
}

/* Step R1 (see the head comment), or the whole job when no thread can be
 * inside the sled on its way to another trampoline. */
int xr_patch_sled_retarget(const struct xr_sled *sled, int32_t function_id,
                           const uintptr_t trampolines[XR_T_CALL_COUNT]) {
  if (sled->address & 1 || !is_call_kind(sled->kind))
    return xr_patch_sled(sled, function_id, trampolines, true);
  uint64_t body;
  uint8_t last;
  if (!call_body(sled, function_id, trampolines[sled->kind], &body, &last))
    return -1;
  uintptr_t a = sled->address;
  uint64_t have = load_code_8(a + 2);
  bool on = load_code_2(a) == BYTES_MOV_R10D;
  if (have == body && (uint8_t)(load_code_2(a + 9) >> 8) == last) {
    if (!on)
      store_code_2(a, BYTES_MOV_R10D);
    return 0;
  }
  if ((uint16_t)(have >> 32) == BYTES_JMP_TO_START)
    return 1; /* guarded already */
  if ((uint8_t)(have >> 32) != (uint8_t)(body >> 32))
    return xr_patch_sled(sled, function_id, trampolines, true); /* no call there yet */
  if (on)
    store_code_2(a, sled->kind == EXIT ? BYTES_RET_NOP : BYTES_JMP_9);
  store_code_2(a + 6, BYTES_JMP_TO_START);
  return 1;
}

/* Step R3, for a sled that R1 left with its jump back at +6. */
int xr_patch_sled_retarget_finish(const struct xr_sled *sled, int32_t function_id,
                                  const uintptr_t trampolines[XR_T_CALL_COUNT]) {
  uint64_t body;
  uint8_t last;
  uintptr_t a = sled->address;
  if (a & 1 || !is_call_kind(sled->kind) || load_code_2(a + 6) != BYTES_JMP_TO_START ||
      !call_body(sled, function_id, trampolines[sled->kind], &body, &last))
    return 0;
  store_code_8((unsigned char *)a + 2,
               (body & ~(0xFFFFull << 32)) | (uint64_t)BYTES_JMP_TO_START << 32);
  store_code_1((unsigned char *)a + 10, last);
  store_code_2(a + 6, (uint16_t)(body >> 32)); /* the opcode, the rel32's low byte */
  store_code_2(a, BYTES_MOV_R10D);
  return 0;
}

/* jmp *0(%rip), then the address. The page is the runtime's own (not
 * code the program runs yet), so plain stores; x86 fetch needs no flush. */
void xr_arch_jump_stub(void *at, uintptr_t target) {
  static const unsigned char jmp[6] = {0xFF, 0x25, 0, 0, 0, 0};
  memcpy(at, jmp, sizeof jmp);
  memcpy((unsigned char *)at + sizeof jmp, &target, sizeof target);
}

int xr_patch_sled(const struct xr_sled *sled, int32_t function_id,
                  const uintptr_t trampolines[XR_T_CALL_COUNT], bool enable) {
  if (sled->address & 1)
    return -1; /* the 16-bit store could cross a fetch block: see above */
  switch (sled->kind) {
  case ENTRY:
  case EXIT:
  case TAIL:
  case LOG_ARGS_ENTRY:
    return patch_call_sled(sled, function_id, trampolines, enable);
  case CUSTOM_EVENT:
    store_code_2(sled->address, enable ? BYTES_NOP2
                                          : sled->version == 0 ? BYTES_JMP_20 : BYTES_JMP_15);
    return 0;
  case TYPED_EVENT:
    store_code_2(sled->address, enable ? BYTES_NOP2 : BYTES_JMP_20);
    return 0;
  default:
    return -1;
  }
}

/* An exit sled takes the place of the `ret` (a tail call has its own
 * kind). */
bool xr_sled_before_return(const struct xr_sled *sled) { return sled->kind == EXIT; }

bool xr_sled_enabled(const struct xr_sled *sled) {
  uint16_t first = *(const volatile uint16_t *)sled->address;
  switch (sled->kind) {
  case CUSTOM_EVENT:
  case TYPED_EVENT:
    return first == BYTES_NOP2;
  default:
    return first == BYTES_MOV_R10D;
  }
}
