/* Which vector state the trampolines must save (cpuid + xgetbv, once), and
 * whether they may keep flags with lahf/sahf. */
#include "handlers.h"

#include <cpuid.h>

uint8_t xr_vector_avx;
uint8_t xr_vector_avx512;
uint32_t xr_xsave_size;
uint64_t xr_xsave_mask;
uint8_t xr_cpu_lahf_sahf;

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
  /* cpuid 0xD/0 EBX: XSAVE area size for what XCR0 enables (an upper bound
   * for our subset); + 64 for the manual alignment. */
  __cpuid_count(0xD, 0, a, b, c, d);
  if (b >= 576) {
    xr_xsave_mask = xcr0 & XR_XSAVE_USER_MASK;
    xr_xsave_size = b + 64;
  }
  if ((c = 0, __get_cpuid(1, &a, &b, &c, &d)) && (c & avx) && (xcr0 & 6) == 6)
    xr_vector_avx = 1;
  /* AVX-512: CPUID 7.0 EBX bit 16, and XCR0 enables SSE, AVX, opmask,
   * ZMM_Hi256 and Hi16_ZMM (bits 1, 2, 5, 6, 7). */
  const unsigned avx512f = 1u << 16;
  if (xr_vector_avx && xr_xsave_size && (xcr0 & 0xE6) == 0xE6 &&
      __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & avx512f))
    xr_vector_avx512 = 1;
out:
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
