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
