/* What the CPU says about its time-stamp counter, for core/clock/clock.c. */
#include "arch/arch.h"

#include <cpuid.h>

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* The TSC: invariant (CPUID 0x80000007 EDX bit 8); its frequency exactly
 * from CPUID 0x15 (crystal clock x TSC/crystal ratio) or the hypervisor
 * timing leaf 0x40000010 (EAX = TSC kHz), else a nominal base from 0x16;
 * rdpid (CPUID 7 ECX bit 22) and rdtscp (0x80000001 EDX bit 27). */
void xr_arch_clock_probe(struct xr_arch_clock_caps *out) {
  unsigned r[4];
  *out = (struct xr_arch_clock_caps){.exact_source = "cpuid",
                                     .cpu_insn_name = "rdpid",
                                     .ticks_cpu_name = "rdtscp"};
  cpuid(0, 0, r);
  unsigned max_basic = r[0];
  if (max_basic >= 1) {
    cpuid(1, 0, r);
    out->hypervisor = (r[2] >> 31) & 1;
  }
  if (max_basic >= 7) {
    cpuid(7, 0, r);
    out->cpu_insn = (r[2] >> 22) & 1;
  }
  cpuid(0x80000000, 0, r);
  unsigned max_ext = r[0];
  if (max_ext >= 0x80000001) {
    cpuid(0x80000001, 0, r);
    out->ticks_cpu = (r[3] >> 27) & 1;
  }
  if (max_ext >= 0x80000007) {
    cpuid(0x80000007, 0, r);
    out->invariant_ticks = (r[3] >> 8) & 1;
  }
  if (!out->invariant_ticks)
    return; /* the frequency leaves are not needed: no cpuid exits paid */
  if (max_basic >= 0x15) {
    cpuid(0x15, 0, r); /* EAX denominator, EBX numerator, ECX crystal Hz */
    if (r[0] && r[1] && r[2]) {
      out->exact_hz = (uint64_t)r[2] * r[1] / r[0];
      return;
    }
  }
  if (out->hypervisor) {
    cpuid(0x40000000, 0, r);
    if (r[0] >= 0x40000010) {
      cpuid(0x40000010, 0, r);
      if (r[0]) {
        out->exact_hz = (uint64_t)r[0] * 1000u;
        return;
      }
    }
  }
  if (max_basic >= 0x16) {
    cpuid(0x16, 0, r); /* EAX base MHz */
    out->nominal_hz = (uint64_t)(r[0] & 0xffff) * 1000000u;
  }
}
