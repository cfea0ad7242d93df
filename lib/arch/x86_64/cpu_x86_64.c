/* Which vector state the trampolines must save (cpuid + xgetbv, once), and
 * whether they may keep flags with lahf/sahf. */
#include "arch/arch.h"

#include <cpuid.h>

/* Decided once by xr_vector_state_init. Read by xr_arch_full_path, which
 * picks a copy of the full paths at each install: xr_vector_avx = 1 when
 * the CPU has AVX and the OS enabled ymm state (the FULL copy, whole ymm
 * registers; else FULL_XMM); xr_vector_avx512 = 1 when the CPU has AVX-512F
 * and XCR0 enables the opmask, ZMM_Hi256 and Hi16_ZMM state (and XSAVE
 * covers it: xr_xsave_size != 0): the FULL_ZMM copy; xr_cpu_lahf_sahf = 1
 * when the CPU has LAHF/SAHF in 64-bit mode (CPUID 0x80000001 ECX bit 0):
 * the copy keeps the status flags with lahf/sahf, else the _PUSHF one with
 * pushfq/popfq. Read by the trampolines (trampoline_x86_64.S):
 * xr_xsave_size/mask, the XSAVE area of xr_call_preserving_vectors (size 0:
 * use FXSAVE); xr_cpu_avx512bw = 1 with AVX512BW (mask registers 64 bits
 * wide, else 16): the event trampolines' zmm path then saves k0-7 with
 * kmovq, else kmovw. */
__attribute__((visibility("hidden"))) uint8_t xr_vector_avx;
__attribute__((visibility("hidden"))) uint8_t xr_vector_avx512;
__attribute__((visibility("hidden"))) uint8_t xr_cpu_avx512bw;
__attribute__((visibility("hidden"))) uint32_t xr_xsave_size;
__attribute__((visibility("hidden"))) uint64_t xr_xsave_mask;
__attribute__((visibility("hidden"))) uint8_t xr_cpu_lahf_sahf;

/* User state components XSAVE may save for xr_call_preserving_vectors: x87,
 * SSE, AVX and the three AVX-512 parts. Not MPX (3, 4; obsolete) nor AMX
 * tiles (17, 18; need a permission and kilobytes). */
#define XR_XSAVE_USER_MASK 0xE7u

void xr_vector_state_init(void) {
  static int done;
  if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
    return;
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & 1u))
    xr_cpu_lahf_sahf = 1;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    goto out;
  const unsigned osxsave = 1u << 27, avx = 1u << 28;
  if (!(c & osxsave))
    goto out; /* FXSAVE covers x87 + xmm: nothing wider can be live */
  uint32_t xcr0_lo, xcr0_hi;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  uint64_t xcr0 = ((uint64_t)xcr0_hi << 32) | xcr0_lo;
  /* The XSAVE area of our components: the legacy area and header (576
   * bytes), then each component i >= 2 at cpuid 0xD/i EBX, EAX bytes long.
   * Not cpuid 0xD/0 EBX (the size for all of XCR0): with AMX enabled that
   * counts 8 KiB of tiles we never save. + 64 for the manual alignment. */
  __cpuid_count(0xD, 0, a, b, c, d);
  if (b >= 576) {
    uint64_t mask = xcr0 & XR_XSAVE_USER_MASK;
    uint32_t size = 576;
    for (unsigned i = 2; i < 8; i++) {
      if (!(mask & (1u << i)))
        continue;
      __cpuid_count(0xD, i, a, b, c, d);
      if (a + b > size)
        size = a + b;
    }
    xr_xsave_mask = mask;
    xr_xsave_size = size + 64;
  }
  if ((c = 0, __get_cpuid(1, &a, &b, &c, &d)) && (c & avx) && (xcr0 & 6) == 6)
    xr_vector_avx = 1;
  /* AVX-512: CPUID 7.0 EBX bit 16, and XCR0 enables SSE, AVX, opmask,
   * ZMM_Hi256 and Hi16_ZMM (bits 1, 2, 5, 6, 7). */
  const unsigned avx512f = 1u << 16;
  if (xr_vector_avx && xr_xsave_size && (xcr0 & 0xE6) == 0xE6 &&
      __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & avx512f)) {
    xr_vector_avx512 = 1;
    xr_cpu_avx512bw = (b >> 30) & 1u; /* 64-bit mask registers */
  }
out:
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* The copy of each full path for the vector state the OS enables (zmm,
 * ymm, else xmm: the paths test nothing about it per event), and its
 * pushfq/popfq form for CPUs without LAHF/SAHF (always the next number).
 * Read at each install, so a test may clear a flag. */
_Static_assert(XR_PATH_FULL_PUSHF == XR_PATH_FULL + 1 &&
                   XR_PATH_FULL_ZMM_PUSHF == XR_PATH_FULL_ZMM + 1 &&
                   XR_PATH_FULL_XMM_PUSHF == XR_PATH_FULL_XMM + 1,
               "each pushfq copy follows its lahf one (arch_x86_64.h)");
unsigned xr_arch_full_path(void) {
  unsigned path = xr_vector_avx512 ? XR_PATH_FULL_ZMM
                  : xr_vector_avx  ? XR_PATH_FULL
                                   : XR_PATH_FULL_XMM;
  return xr_cpu_lahf_sahf ? path : path + 1;
}
