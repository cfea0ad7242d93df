/* Which vector state the AArch64 trampolines save: q0-q31 (the FP/SIMD
 * registers every AArch64 Linux CPU has) and FPCR/FPSR, whatever the CPU.
 * SVE's z and p registers are not saved: see trampoline_aarch64.S's head
 * comment for what that means for SVE functions. */
#include "arch/arch.h"

void xr_vector_state_init(void) {}

unsigned xr_arch_full_path(void) { return XR_PATH_FULL; }
