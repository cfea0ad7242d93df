/* Whether the runtime is up: one flag every room may read, set once by
 * start-up (core/start/init.c). */
#ifndef XR_RUNTIME_STATE_H
#define XR_RUNTIME_STATE_H

#include "core/base/common.h"

/* True once init registered the executable as object 0 (with its map, or
 * with none): the runtime works (patching and the handler API refuse until
 * then, as compiler-rt's do before __xray_init, and for good when the
 * executable's map is not valid). */
XR_HIDDEN bool xr_runtime_initialized(void);
XR_HIDDEN void xr_runtime_set_initialized(void);

#endif
