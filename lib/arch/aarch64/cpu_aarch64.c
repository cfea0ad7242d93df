/* Which vector state the AArch64 trampolines save: q0-q31 (every AArch64
 * Linux CPU has FP/SIMD) and FPCR/FPSR; on CPUs with SVE, the z and p
 * registers and FFR whole instead (the FULL_SVE paths and
 * xr_call_preserving_vectors): restoring a q register zeroes the bits of
 * its z register above 128, which would cut an SVE function's arguments. */
#include "arch/arch.h"

#include <sys/auxv.h>

#define XR_HWCAP_SVE (1ul << 22) /* <asm/hwcap.h> HWCAP_SVE */

/* Read by the trampolines (trampoline_aarch64.S). */
__attribute__((visibility("hidden"))) uint8_t xr_cpu_sve;

void xr_vector_state_init(void) {
  static int done;
  if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
    return;
  xr_cpu_sve = (getauxval(AT_HWCAP) & XR_HWCAP_SVE) != 0;
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* Read at each install, so a test may clear the flag. */
unsigned xr_arch_full_path(void) { return xr_cpu_sve ? XR_PATH_FULL_SVE : XR_PATH_FULL; }
