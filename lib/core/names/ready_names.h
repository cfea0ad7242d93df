/* Names of dense ids read in a crash handler (ready_names.c): the name
 * tables built ahead, on the cold path, and looked up without a lock or an
 * allocation. */
#ifndef XR_READY_NAMES_H
#define XR_READY_NAMES_H

#include "core/base/common.h"

/* On: from the next change a dense mode hears of (its start included:
 * xr_objects_dense_recording), every object's name table is built and
 * published for xr_ready_names_dense, again after each object registers or
 * goes. A mode that will need names in a crash handler turns it on before
 * it starts recording, and off when it stops. Cold path. */
XR_HIDDEN void xr_ready_names_keep(bool on);
/* Registration's subscriber (init.c subscribes it). */
struct xr_object_events;
XR_HIDDEN extern const struct xr_object_events xr_ready_names_events;
/* The name of dense id `id` (core/objects/objects.h) from the tables
 * published so far, or NULL (none built for its object, or not a function).
 * Async-signal-safe: atomic loads of immutable memory, no lock, no
 * allocation. */
XR_HIDDEN const char *xr_ready_names_dense(int32_t id);

#endif
