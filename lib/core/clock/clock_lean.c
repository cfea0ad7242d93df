/* The clock's entry points for lean handlers that are not inline: xr_now()'s
 * fallback without a usable tick counter, and xr_cpu_id (see clock.h). Cold
 * code, but a lean translation unit (core/base/lean.h): lean handlers call it,
 * their trampolines saved no vector register, and these wrappers must not
 * touch one before xr_call_preserving_vectors has saved them. The libc work
 * (clock_gettime, sched_getcpu, the first xr_clock_init) runs behind that
 * save, in clock.c.
 * Cost: the port's vector save and restore around clock_gettime, a few
 * hundred cycles. */
#include "core/base/lean.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"

/* Out of line, so that xr_cpu_id's register-only paths carry no frame for
 * the request (two register saves per call otherwise). */
static XR_NOINLINE uint64_t behind_save(enum xr_clock_work work) {
  struct xr_clock_request r = {work, 0};
  xr_call_preserving_vectors(xr_clock_behind_save, &r);
  return r.out;
}

uint64_t xr_clock_fallback_now(void) { return behind_save(XR_CLOCK_MONOTONIC_NS); }

/* The CPU the thread runs on, for lean handlers (basic mode's records).
 * Cost: rseq one TLS-relative load; the port's CPU-id instruction tens of
 * cycles; its tick-and-CPU read more. The libc paths (sched_getcpu: no rseq
 * and neither port read, or a thread glibc did not register; the first call
 * before xr_clock_init) run behind a vector save, like xr_now()'s fallback. */
/* NOLINTNEXTLINE(misc-no-recursion): once, after XR_CLOCK_INIT set the method */
uint32_t xr_cpu_id(void) {
  switch (xr_cpu_method) {
  case XR_CPU_ID_RSEQ: {
    int32_t c = xr_cpu_by_rseq();
    if (XR_LIKELY(c >= 0))
      return (uint32_t)c;
    break; /* this thread has no rseq registration */
  }
  case XR_CPU_ID_INSN:
    return xr_cpu_by_insn();
  case XR_CPU_ID_WITH_TICKS:
    return xr_cpu_by_ticks_read();
  case XR_CPU_ID_SCHED:
    break;
  default:
    behind_save(XR_CLOCK_INIT);
    if (xr_cpu_method != 0)
      return xr_cpu_id();
    break;
  }
  return (uint32_t)behind_save(XR_CLOCK_SCHED_CPU);
}
