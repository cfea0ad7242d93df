/* The registry of instrumented objects: the executable is object 0, each
 * shared object registered by its libxray-dso constructor (or LLVM 20's
 * xray-dso) gets an id 1..255. Function ids handed to handlers are packed
 * (object << 24) | function, so the executable's ids are unchanged.
 *
 * Readers outside patching (names, the sidecar map) use the small interface
 * at the end: a snapshot of one object under the registry lock. */
#ifndef XR_OBJECTS_H
#define XR_OBJECTS_H

#include "arch/trampoline_numbers.h"
#include "core/base/common.h"
#include "core/dispatch/function_ids.h"
#include "core/objects/sled_map.h"

#include <limits.h>

#define XR_BUILD_ID_MAX 32
/* The base the next new object gets if its functions fit (lock held; a
 * unit test starts it near the limit). */
XR_HIDDEN extern uint32_t xr_objects_next_id_base;

struct xr_object {
  int32_t id;
  struct xr_sled_map *map;  /* &xr_self_map for object 0 */
  uintptr_t trampolines[XR_T_CALL_COUNT]; /* what its call sleds call, by kind */
  uintptr_t base;           /* load address (dl_iterate_phdr's dlpi_addr) */
  char path[PATH_MAX];      /* as the loader names it; "" unknown */
  uint8_t build_id[XR_BUILD_ID_MAX];
  uint8_t build_id_size;
  bool forwards_packed;     /* no dispatch copy: its trampolines jump to the
                               executable's with packed ids (generation 0) */
  uint32_t generation;      /* times this id was registered */
  uint32_t id_base;         /* dense ids (above), or XR_NO_ID_BASE */
  bool packed_dispatch;     /* a dispatch copy without dense paths */
  bool used;                /* the id was handed out (stays set) */
  bool loaded;              /* registered and not yet deregistered */
  bool from_dso;
};

/* The registry lock: held by every patching call while it touches an
 * object's pages, and by register/deregister. So a deregistering object (its
 * destructor runs before the loader unmaps it) waits for a patching call in
 * progress and is never touched after. Cold path only. */
XR_HIDDEN void xr_objects_lock(void);
XR_HIDDEN void xr_objects_unlock(void);

/* The executable's own trampolines of the call kinds, by XR_T_* number. */
XR_HIDDEN void xr_self_trampolines(uintptr_t out[XR_T_CALL_COUNT]);

/* Object `id` (lock held), or NULL when out of range or never used. */
XR_HIDDEN struct xr_object *xr_object_get(int32_t id);

/* Registers the executable as object 0 (init.c, after xr_self_map is
 * loaded; with zero functions when the executable has no map). */
XR_HIDDEN void xr_objects_register_self(void);

/* What registration means to the files above the registry, told to them
 * instead of the registry calling up into them. Each hook may be NULL. */
struct xr_object_events {
  void (*coming)(void);                    /* a shared object registers next:
                                              lock not held (start.c) */
  void (*registered)(struct xr_object *o); /* lock held (patch_api.c) */
  void (*replaced)(int32_t id);            /* id is registered again (the same
                                              file): lock held (names.c) */
  void (*after_fork)(void);                /* in a fork child */
  void (*going)(struct xr_object *o);      /* o deregisters (its pages go away
                                              next): lock held, its dispatch
                                              copy already forgotten
                                              (patch_api.c) */
  void (*dense_changed)(void);             /* while a dense mode records: it
                                              started, or an object registered
                                              or went; lock not held
                                              (object_map.c) */
};
/* Successful registrations so far, reloads too (lock held). */
XR_HIDDEN uint32_t xr_objects_registrations(void);
/* Adds a subscriber (init.c, before any object registers; at most 8). */
XR_HIDDEN void xr_objects_subscribe(const struct xr_object_events *events);

struct xr_dso_trampolines;
/* __xray_register_dso's work once the runtime is up (init.c is its door):
 * the new object's id, or -1 (reported). */
XR_HIDDEN int32_t xr_objects_register(const void *sleds_begin, const void *sleds_end,
                                      const void *fn_index_begin, const void *fn_index_end,
                                      struct xr_dso_trampolines trampolines);

/* A mode whose handlers take dense ids (FDR) calls this when it starts
 * (who: its name in messages) and with NULL when it stops. Objects it cannot
 * trace (no id base, or a dispatch copy without dense paths: handlers.c
 * sends their events to the none path while it runs; or none at all: they
 * stay unpatched, xr_object_left_unpatched) are said at verbosity 1, now
 * and as they register, and counted (xr_objects_not_dense). At a start the dense_changed subscribers have run
 * when it returns, so those objects are unpatched before the mode installs
 * its handlers. */
XR_HIDDEN void xr_objects_dense_recording(const char *who);

/* True when o (lock held) must stay unpatched because a dense mode records:
 * its trampolines forward packed ids to the executable's (a libxray-dso.a of
 * generation 0), whose dense path would record them as dense ids that no
 * map names. The patching API leaves such sleds alone and unpatches them
 * when a dense mode starts (patch_api.c). */
XR_HIDDEN bool xr_object_left_unpatched(const struct xr_object *o);

/* Loaded objects the running dense mode cannot trace (each said at
 * verbosity 1); 0 when no dense mode runs. */
XR_HIDDEN size_t xr_objects_not_dense(void);

/* The packed id of dense id `dense`, or -1 when no object has it. */
XR_HIDDEN int32_t xr_objects_packed_of_dense(int32_t dense);

/* ---- read-only view for names, maps and modes (takes the lock) ---------- */
struct xr_object_info {
  int32_t id;
  bool loaded;
  uintptr_t base;
  const char *path; /* valid until the object's id is registered again */
  const uint8_t *build_id;
  size_t build_id_size;
  size_t function_count;
  uint32_t id_base;              /* XR_NO_ID_BASE: none */
  const struct xr_sled_map *map; /* kept (stale addresses) after unloading */
  uint32_t generation;           /* times the id was registered */
};
/* One more than the highest object id ever handed out (1 with only the
 * executable, 0 before init): what __xray_num_objects returns. */
XR_HIDDEN size_t xr_objects_count(void);
/* Fills *out for object id; false when the id was never used. */
XR_HIDDEN bool xr_object_info(int32_t id, struct xr_object_info *out);

#endif
