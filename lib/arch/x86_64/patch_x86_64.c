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
 *     `call` (at +6) must still find the call there. A later re-patch
 *     rewrites the body with the very same bytes (the id and the trampoline
 *     of a sled never change), so such a thread still finds the same call.
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
 * program. */
#include "arch/arch.h"
#include "core/patch/patching.h"

#include "xray/xray_interface.h"

#define OP_CALL 0xE8
#define OP_JMP 0xE9

/* First two bytes of each sled, little-endian as stored by one 16-bit store. */
#define BYTES_MOV_R10D 0xBA41u   /* 41 BA */
#define BYTES_JMP_9 0x09EBu      /* EB 09 */
#define BYTES_RET_NOP 0x2EC3u    /* C3 2E */
#define BYTES_NOP2 0x9066u       /* 66 90 */
#define BYTES_JMP_15 0x0FEBu     /* EB 0F */
#define BYTES_JMP_20 0x14EBu     /* EB 14 */

/* Code is written with plain x86 stores in asm, never C stores: sanitizers
 * would instrument those, and ThreadSanitizer keeps no writable shadow for
 * text (it faults). An aligned 2-byte mov is single-copy atomic, and x86
 * stores are release-ordered: the "memory" clobber keeps the compiler from
 * moving the body's stores after it. */
static void store_first_two(uintptr_t address, uint16_t bytes) {
  __asm__ volatile("movw %w1, (%0)" : : "r"(address), "r"(bytes) : "memory");
}

static void store_code_8(unsigned char *p, uint64_t v) {
  __asm__ volatile("movq %1, (%0)" : : "r"(p), "r"(v) : "memory");
}

static void store_code_1(unsigned char *p, uint8_t v) {
  __asm__ volatile("movb %b1, (%0)" : : "r"(p), "q"(v) : "memory");
}

static int patch_call_sled(const struct xr_sled *sled, int32_t id,
                           const uintptr_t t[XR_T_CALL_COUNT], bool enable) {
  unsigned char *p = (unsigned char *)sled->address;
  if (!enable) {
    store_first_two(sled->address, sled->kind == EXIT ? BYTES_RET_NOP : BYTES_JMP_9);
    return 0;
  }
  /* The body as integers (no byte buffer: a store-forwarding stall per
   * sled otherwise): bytes 2..9 = id, opcode, rel32 bits 0..23; byte 10 =
   * rel32 bits 24..31. */
  uintptr_t target = t[sled->kind]; /* a call kind: see xr_patch_sled */
  int64_t rel = (int64_t)(target - (sled->address + XR_ARCH_CALL_SLED_BYTES));
  if (rel < INT32_MIN || rel > INT32_MAX)
    return -1;
  uint32_t rel32 = (uint32_t)(int32_t)rel;
  uint64_t opcode = sled->kind == EXIT ? OP_JMP : OP_CALL;
  uint64_t want = (uint64_t)(uint32_t)id | opcode << 32 | (uint64_t)(rel32 & 0xFFFFFFu) << 40;
  uint8_t last = (uint8_t)(rel32 >> 24);
  store_code_8(p + 2, want); /* written blind: reading first would fault */
  store_code_1(p + 10, last); /* the page in once for the read, again here */
  store_first_two(sled->address, BYTES_MOV_R10D); /* release: after the body */
  return 0;
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
    store_first_two(sled->address, enable ? BYTES_NOP2
                                          : sled->version == 0 ? BYTES_JMP_20 : BYTES_JMP_15);
    return 0;
  case TYPED_EVENT:
    store_first_two(sled->address, enable ? BYTES_NOP2 : BYTES_JMP_20);
    return 0;
  default:
    return -1;
  }
}

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
