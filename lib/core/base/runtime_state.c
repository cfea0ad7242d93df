/* The runtime's "initialised" flag (runtime_state.h). Release on set,
 * acquire on read: a reader that sees it set sees object 0 registered. */
#include "core/base/runtime_state.h"

static bool initialized;

bool xr_runtime_initialized(void) {
  return __atomic_load_n(&initialized, __ATOMIC_ACQUIRE);
}

void xr_runtime_set_initialized(void) {
  __atomic_store_n(&initialized, true, __ATOMIC_RELEASE);
}
