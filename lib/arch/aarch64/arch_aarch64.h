/* The inline part of the AArch64 port (see lib/arch/arch.h): its sizes and
 * path numbers, and the register-only reads that the lean handlers inline.
 * C includes arch/arch.h, not this; the trampolines include it for the
 * numbers (the C part is hidden from the assembler). */
#ifndef XR_ARCH_AARCH64_H
#define XR_ARCH_AARCH64_H

#include "arch/trampoline_numbers.h"

/* The smallest translation granule Linux uses on AArch64. Kernels built
 * with 16 KiB or 64 KiB pages refuse the 4 KiB-aligned madvise of the FDR
 * buffer pre-fault (buffer_queue.c), which then falls back to faulting
 * pages in as they are written; patching asks sysconf for the real size. */
#define XR_PAGE_SIZE 4096u

/* The port's name in messages, and how many integer arguments the ABI
 * passes in registers (argument capture, core/dispatch/hot_tables.h). */
#define XR_ARCH_NAME "AArch64"
#define XR_ARCH_INT_ARG_REGS 8

/* Sled sizes: 32 bytes for the call kinds (`b #32` and seven nops while
 * unpatched), and those of the two event sleds. */
#define XR_ARCH_CALL_SLED_BYTES 32u
#define XR_ARCH_CUSTOM_SLED_BYTES 24u
#define XR_ARCH_TYPED_SLED_BYTES 36u
#define XR_ARCH_MAX_SLED_BYTES XR_ARCH_TYPED_SLED_BYTES

/* How far a call sled's `bl` reaches either way, and the size of a jump
 * stub (`ldr x16, #8; br x16` and the address). */
#define XR_ARCH_CALL_REACH ((uintptr_t)1 << 27)
#define XR_ARCH_JUMP_STUB_BYTES 16u

/* After NONE, LEAN, FULL: the full path for CPUs with SVE (z0-z31, p0-p15
 * and FFR whole, not q0-q7). */
#define XR_PATH_FULL_SVE 3
#define XR_ARCH_PATH_COUNT 4

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XR_ARCH_INLINE inline __attribute__((always_inline))

/* The virtual count of the generic timer (CNTVCT_EL0): constant rate by
 * the architecture, readable at EL0 on Linux. No isb before it: like
 * x86's rdtsc (no fence), the read may drift by a few instructions, which
 * an event timestamp does not notice; an isb would cost a pipeline flush
 * per event. */
static XR_ARCH_INLINE uint64_t xr_arch_ticks(void) {
  uint64_t v;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}

/* No instruction gives the CPU id at EL0 (xr_arch_clock_probe says so, and
 * core/clock/clock.c then reads it from rseq or getcpu); these exist so that core
 * compiles, and are never chosen. */
static XR_ARCH_INLINE uint64_t xr_arch_ticks_cpu(uint32_t *cpu) {
  *cpu = 0;
  return xr_arch_ticks();
}
static XR_ARCH_INLINE uint32_t xr_arch_cpu_insn(void) { return 0; }

/* (hi:lo) / d for hi < d, by shift and subtract (AArch64 has no 128-by-64
 * division; this runs at clock set-up only, never per event). */
static XR_ARCH_INLINE uint64_t xr_arch_udiv128(uint64_t hi, uint64_t lo, uint64_t d) {
  uint64_t q = 0;
  for (int i = 0; i < 64; i++) {
    uint64_t carry = hi >> 63;
    hi = hi << 1 | lo >> 63;
    lo <<= 1;
    q <<= 1;
    if (carry || hi >= d) {
      hi -= d;
      q |= 1;
    }
  }
  return q;
}

/* Spin-wait hint. */
static XR_ARCH_INLINE void xr_arch_pause(void) { __asm__ volatile("yield" ::: "memory"); }

/* A 32-bit load at thread pointer (TPIDR_EL0) + offset. */
static XR_ARCH_INLINE int32_t xr_arch_tls_load_s32(intptr_t offset) {
  uintptr_t tp;
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
  return *(volatile int32_t *)(tp + (uintptr_t)offset);
}

/* Sets bit 63 of *word and says whether it was set already. An exclusive
 * load/store pair, no barrier: a signal handler on this thread that runs
 * between the two clears the exclusive monitor (the kernel's exception
 * return does), so the store fails and the loop reads the word again: the
 * same guarantee as x86's single instruction. Only the word's owner may
 * call it (other writers are not ordered against it). Also a compiler
 * barrier. */
static XR_ARCH_INLINE bool xr_arch_test_and_set_top_bit(uintptr_t *word) {
  uintptr_t old, tmp;
  uint32_t failed;
  __asm__ volatile("1: ldxr %0, [%3]\n\t"
                   "orr %1, %0, #0x8000000000000000\n\t"
                   "stxr %w2, %1, [%3]\n\t"
                   "cbnz %w2, 1b"
                   : "=&r"(old), "=&r"(tmp), "=&r"(failed)
                   : "r"(word)
                   : "memory");
  return (old >> 63) != 0;
}

#endif /* __ASSEMBLER__ */

#endif
