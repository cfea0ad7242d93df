/* xr_now()'s fallback when there is no usable TSC (see clock.h).
 *
 * In a *_hot.c file, so compiled with -mgeneral-regs-only: xr_now() is
 * inlined into lean handlers, whose trampolines saved no vector register,
 * and this wrapper must not touch one before xr_call_preserving_vectors has
 * saved them. clock_gettime itself runs behind that save.
 * Cost: XSAVE + clock_gettime + XRSTOR, a few hundred cycles. */
#include "core/clock.h"
#include "core/handlers.h"

uint64_t xr_clock_fallback_now(void) {
  uint64_t ns = 0;
  xr_call_preserving_vectors(xr_clock_monotonic_cb, &ns);
  return ns;
}

/* The CPU the thread runs on, for lean handlers (basic mode's records).
 * Cost: rseq one TLS-relative load; rdpid ~tens of cycles; rdtscp more. The
 * libc paths (sched_getcpu: no rseq and no rdpid/rdtscp, or a thread glibc
 * did not register; the first call before xr_clock_init) run behind a
 * vector save, like xr_now()'s fallback. */
uint32_t xr_cpu_id(void) {
  uint32_t cpu = 0;
  switch (xr_cpu_method) {
  case XR_CPU_ID_RSEQ: {
    int32_t c = xr_cpu_by_rseq();
    if (XR_LIKELY(c >= 0))
      return (uint32_t)c;
    break; /* this thread has no rseq registration */
  }
  case XR_CPU_ID_RDPID:
    return xr_arch_cpu_insn();
  case XR_CPU_ID_RDTSCP:
    return xr_cpu_by_rdtscp();
  case XR_CPU_ID_SCHED:
    break;
  default:
    xr_call_preserving_vectors(xr_clock_init_cb, NULL);
    if (xr_cpu_method != 0)
      return xr_cpu_id();
    break;
  }
  xr_call_preserving_vectors(xr_cpu_sched_cb, &cpu);
  return cpu;
}
