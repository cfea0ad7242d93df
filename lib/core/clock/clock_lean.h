/* The clock's lean half (clock_lean.c): the timestamp and CPU id every
 * handler reads. Reads the cold half's state (clock.h); clock.c never
 * includes this header. */
#ifndef XR_CLOCK_LEAN_H
#define XR_CLOCK_LEAN_H

#include "core/base/common.h"
#include "core/clock/clock.h"

/* Slow path of xr_now() without a usable tick counter: CLOCK_MONOTONIC ns,
 * read through xr_call_preserving_vectors (clock_lean.c), so it is
 * safe in lean handlers, whose callers saved no vector register, while
 * clock_gettime (vDSO, libc) may use any. Costs the port's vector save and
 * restore on top of clock_gettime: a few hundred cycles, only on machines
 * without an invariant counter. */
XR_HIDDEN uint64_t xr_clock_fallback_now(void);

/* Hot path: one predictable branch and one tick read. Safe in every caller,
 * lean handlers (lean translation units, core/base/lean.h) included. */
static XR_ALWAYS_INLINE uint64_t xr_now(void) {
  if (XR_LIKELY(xr_clock.using_ticks))
    return xr_read_ticks();
  return xr_clock_fallback_now();
}

/* CPU the calling thread runs on, cheaply (rseq area / the port's CPU-id
 * instruction / its tick-and-CPU read / sched_getcpu, best first, chosen by
 * xr_clock_init). Low 16 bits are meaningful. */
XR_HIDDEN uint32_t xr_cpu_id(void);

#endif
