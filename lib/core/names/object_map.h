/* The object map (object_map.c): the `<log>.map` file beside a log or a
 * snapshot that names every function id the log holds, by object. */
#ifndef XR_OBJECT_MAP_H
#define XR_OBJECT_MAP_H

#include "core/base/common.h"
#include "core/objects/objects.h"

/* Writes `<log_path>.map` when shared objects were
 * registered (nothing otherwise), naming each function by the id the log
 * holds: its dense id when `dense` (FDR), else its packed id. Returns 0, or
 * -1 (reported). */
XR_HIDDEN int xr_object_map_write(const char *log_path, bool dense);
/* Registration's subscriber (init.c subscribes it): while a dense mode
 * records, the map's lines are rendered ahead for snapshots. */
XR_HIDDEN extern const struct xr_object_events xr_object_map_events;
/* Writes `<log_path>.map` (its name into map_path) from the lines rendered
 * ahead, when shared objects registered: 1 written, 0 none needed, -1 with
 * errno (a part written is removed). Async-signal-safe: no allocation, no
 * lock, no stdio (a snapshot taken in a signal or crash handler). */
XR_HIDDEN int xr_object_map_write_ready(const char *log_path, char *map_path,
                                         size_t cap);

#endif
