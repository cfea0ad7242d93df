/* Where the sleds of a function with argument capture go (args_targets.c). */
#ifndef XR_ARGS_TARGETS_H
#define XR_ARGS_TARGETS_H

#include "core/base/common.h"
#include "core/objects/objects.h"

/* The entry and exit targets for object o's sleds (lock held), the
 * trampolines pointed at their copies for this CPU first; false when o has
 * none (no page in reach: said once, naming the `wanted` functions that
 * keep the usual trampolines). */
XR_HIDDEN bool xr_args_targets(const struct xr_object *o, size_t wanted, uintptr_t out[2]);

/* Object `id` goes: its stub page with it. */
XR_HIDDEN void xr_args_targets_free(int32_t id);

#endif
