/* For the clock and FDR tests: the CPU id read by one given method, when
 * this CPU, libc and thread offer it (returns 0 and sets *cpu), else -1.
 * The runtime picks one method at xr_clock_init and never needs the others,
 * so this probe lives with the tests. */
#ifndef XR_TEST_CPU_ID_METHODS_H
#define XR_TEST_CPU_ID_METHODS_H

#include "arch/arch.h"
#include "core/clock/clock.h"
#include <sched.h>

static inline int test_cpu_id_by(enum xr_cpu_id_method method,
                                 uint32_t *cpu) {
  struct xr_arch_clock_caps caps;
  xr_arch_clock_probe(&caps);
  switch (method) {
  case XR_CPU_ID_RSEQ: {
    int32_t c = xr_rseq_available() ? xr_cpu_by_rseq() : -1;
    if (c < 0)
      return -1;
    *cpu = (uint32_t)c;
    return 0;
  }
  case XR_CPU_ID_INSN:
    if (!caps.cpu_insn)
      return -1;
    *cpu = xr_cpu_by_insn();
    return 0;
  case XR_CPU_ID_WITH_TICKS:
    if (!caps.ticks_cpu)
      return -1;
    *cpu = xr_cpu_by_ticks_read();
    return 0;
  case XR_CPU_ID_SCHED: {
    int c = sched_getcpu();
    *cpu = c < 0 ? 0u : (uint32_t)c;
    return 0;
  }
  }
  return -1;
}

#endif
