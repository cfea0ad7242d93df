/* The running mode's argument sink (args_sink.h). */
#include "core/modes/args_sink.h"

static const struct xr_args_sink *current;

void xr_args_sink_set(const struct xr_args_sink *sink) {
  __atomic_store_n(&current, sink, __ATOMIC_RELEASE);
}

const struct xr_args_sink *xr_args_sink_get(void) {
  return __atomic_load_n(&current, __ATOMIC_ACQUIRE);
}
