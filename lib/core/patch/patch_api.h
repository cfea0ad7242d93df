/* The patching API's door (patch_api.c): besides the public __xray_patch*
 * calls, what the files below the door need from it. */
#ifndef XR_PATCH_API_H
#define XR_PATCH_API_H

#include "core/base/common.h"

/* What the xray_patch / xray_skip options were matched against so far. */
struct xr_options_scope {
  size_t shared_objects; /* instrumented shared objects ever registered */
  size_t functions;      /* their functions and the executable's */
  uint32_t registrations; /* successful registrations so far (reloads too) */
  bool incomplete;        /* an object's names could not be read (no
                             memory): its matches are unknown, so no
                             pattern is said to match nothing */
};

/* Builds the xray_patch / xray_skip selection of every registered object
 * that has none yet (so each pattern's bit is final for these objects) and
 * fills *out (names_check.c; takes the registry lock). */
XR_HIDDEN void xr_patch_match_options(struct xr_options_scope *out);

/* How many of object id's functions have a sled patched now, read from the
 * sleds under the registry lock (0 when it is not loaded). */
XR_HIDDEN size_t xr_patch_count_patched(int32_t id);

/* Registration's subscriber (init.c subscribes it): patch_premain for
 * objects registered later, their patch state freed when they go; the busy
 * flag in a fork child. */
struct xr_object_events;
XR_HIDDEN extern const struct xr_object_events xr_patch_api_events;

#endif
