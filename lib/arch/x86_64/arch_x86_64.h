/* The inline part of the x86-64 port (see lib/arch/arch.h): its sizes and
 * path numbers, and the register-only reads that the lean handlers inline.
 * C includes arch/arch.h, not this; the trampolines include it for the
 * numbers (the C part is hidden from the assembler). */
#ifndef XR_ARCH_X86_64_H
#define XR_ARCH_X86_64_H

#include "arch/trampoline_numbers.h"

#define XR_PAGE_SIZE 4096u /* x86-64 base pages */

/* The port's name in messages, and how many integer arguments the ABI
 * passes in registers (argument capture, core/dispatch/hot_tables.h). */
#define XR_ARCH_NAME "x86-64"
#define XR_ARCH_INT_ARG_REGS 6

/* Sled sizes: 11 bytes for the call kinds (`mov $id, %r10d` and a rel32
 * call or jmp once patched), and those of the two event sleds. */
#define XR_ARCH_CALL_SLED_BYTES 11u
#define XR_ARCH_CUSTOM_SLED_BYTES 17u
#define XR_ARCH_TYPED_SLED_BYTES 22u
#define XR_ARCH_MAX_SLED_BYTES XR_ARCH_TYPED_SLED_BYTES

/* How far a call sled's rel32 reaches either way (from the sled's end),
 * and the size of a jump stub (`jmp *0(%rip)` and the address). */
#define XR_ARCH_CALL_REACH ((uintptr_t)1 << 31)
#define XR_ARCH_JUMP_STUB_BYTES 14u

/* The trampolines' full-path variants, after NONE, LEAN, FULL (ymm,
 * lahf/sahf): pushfq/popfq instead of lahf/sahf, zmm instead of ymm, xmm
 * instead of ymm, each vector width with either flags form. */
#define XR_PATH_FULL_PUSHF 3
#define XR_PATH_FULL_ZMM 4
#define XR_PATH_FULL_ZMM_PUSHF 5
#define XR_PATH_FULL_XMM 6
#define XR_PATH_FULL_XMM_PUSHF 7
#define XR_ARCH_PATH_COUNT 8

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XR_ARCH_INLINE inline __attribute__((always_inline))

/* The time-stamp counter (rdtsc). */
static XR_ARCH_INLINE uint64_t xr_arch_ticks(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/* The time-stamp counter and, in *cpu, the CPU id, from one rdtscp. Linux
 * keeps node << 12 | cpu in TSC_AUX. */
static XR_ARCH_INLINE uint64_t xr_arch_ticks_cpu(uint32_t *cpu) {
  uint32_t lo, hi, aux;
  __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
  *cpu = aux & 0xfff;
  return ((uint64_t)hi << 32) | lo;
}

/* The CPU id alone: rdpid (as bytes: older assemblers lack the mnemonic). */
static XR_ARCH_INLINE uint32_t xr_arch_cpu_insn(void) {
  uint64_t aux;
  __asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(aux)); /* rdpid rax */
  return (uint32_t)aux & 0xfff;
}

/* (hi:lo) / d with one divq (no libgcc); the caller ensures hi < d, so the
 * quotient fits. */
static XR_ARCH_INLINE uint64_t xr_arch_udiv128(uint64_t hi, uint64_t lo, uint64_t d) {
  uint64_t q, r;
  __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "r"(d));
  (void)r;
  return q;
}

/* Spin-wait hint. */
static XR_ARCH_INLINE void xr_arch_pause(void) { __builtin_ia32_pause(); }

/* A 32-bit load at thread pointer + offset (one %fs-relative mov: cheaper
 * than reading the thread pointer first, and clang 13 cannot lower
 * __builtin_thread_pointer() on x86-64). */
static XR_ARCH_INLINE int32_t xr_arch_tls_load_s32(intptr_t offset) {
  int32_t v;
  __asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"(offset));
  return v;
}

/* Sets bit 63 of *word and says whether it was set already. One
 * instruction, not locked: atomic against a signal handler on this thread
 * (it runs wholly before or after), not against other writers, so only the
 * word's owner may call it. Also a compiler barrier. */
static XR_ARCH_INLINE bool xr_arch_test_and_set_top_bit(uintptr_t *word) {
  bool was_set;
  __asm__ volatile("btsq $63, %0" : "+m"(*word), "=@ccc"(was_set) : : "memory");
  return was_set;
}

#endif /* __ASSEMBLER__ */

#endif
