/* What the CPU says about its tick counter, for core/clock/clock.c. */
#include "arch/arch.h"

/* The generic timer's virtual count runs at a constant rate, also when the
 * CPU idles (the architecture requires it: Arm ARM D11 "The Generic
 * Timer"), at the frequency firmware writes to CNTFRQ_EL0, which EL0 can
 * read: that is the exact frequency, and the FDR header's cycle frequency.
 * No EL0 instruction gives the CPU id: core uses rseq, else getcpu. */
void xr_arch_clock_probe(struct xr_arch_clock_caps *out) {
  uint64_t hz;
  __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
  *out = (struct xr_arch_clock_caps){
      .invariant_ticks = true,
      .exact_hz = hz & 0xffffffffu, /* bits 63:32 are RES0 */
      .exact_source = "cntfrq_el0",
  };
}
