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
#include "core/objects/sled_map.h"

#include <limits.h>

#define XR_MAX_OBJECTS 256 /* object ids 0..255 */
#define XR_OBJECT_SHIFT 24
#define XR_FUNCTION_MASK 0x00FFFFFFu
#define XR_BUILD_ID_MAX 32

static inline int32_t xr_pack_id(int32_t fn, int32_t obj) {
  return (int32_t)(((uint32_t)obj << XR_OBJECT_SHIFT) | ((uint32_t)fn & XR_FUNCTION_MASK));
}
static inline int32_t xr_id_object(int32_t packed) {
  return (int32_t)((uint32_t)packed >> XR_OBJECT_SHIFT);
}
static inline int32_t xr_id_function(int32_t packed) {
  return (int32_t)((uint32_t)packed & XR_FUNCTION_MASK);
}

/* Dense ids: every object's functions laid end to end, for a mode whose
 * records hold fewer than 32 bits of id (FDR: 28). An object's id base is
 * given once, when its id is first handed out (the executable's is 0, so its
 * dense ids are its packed ids); dense id = id base + function. A file
 * loaded again gets its object id, and so its base, back; bases are never
 * reused, so a dense id names one function for the whole process. Objects
 * whose functions do not fit below XR_DENSE_ID_LIMIT get XR_NO_ID_BASE. */
#define XR_DENSE_ID_LIMIT (1u << 28)
#define XR_NO_ID_BASE 0xFFFFFFFFu
/* Each object's id base, indexed by object id (XR_NO_ID_BASE when none):
 * read without the lock by dense_ids_lean.c. */
XR_HIDDEN extern uint32_t xr_objects_id_base[XR_MAX_OBJECTS];
/* The base the next new object gets if its functions fit (lock held; a
 * unit test starts it near the limit). */
XR_HIDDEN extern uint32_t xr_objects_next_id_base;

struct xr_patch_state; /* patching.c's per-object cache */

struct xr_object {
  int32_t id;
  struct xr_sled_map *map;  /* &xr_self_map for object 0 */
  uintptr_t trampolines[XR_T_CALL_COUNT]; /* what its call sleds call, by kind */
  struct xr_patch_state *patch;
  uintptr_t base;           /* load address (dl_iterate_phdr's dlpi_addr) */
  char path[PATH_MAX];      /* as the loader names it; "" unknown */
  uint8_t build_id[XR_BUILD_ID_MAX];
  uint8_t build_id_size;
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
 * sends their events to the none path while it runs) are said at verbosity
 * 1, now and as they register, and counted in the message. */
XR_HIDDEN void xr_objects_dense_recording(const char *who);

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
/* How many of object id's functions have a sled patched now, read from the
 * sleds under the registry lock (0 when it is not loaded). */
XR_HIDDEN size_t xr_objects_patched_functions(int32_t id);

/* object_map.c: writes `<log_path>.map` when shared objects were
 * registered (nothing otherwise), naming each function by the id the log
 * holds: its dense id when `dense` (FDR), else its packed id. Returns 0, or
 * -1 (reported). */
XR_HIDDEN int xr_objects_write_map(const char *log_path, bool dense);
/* Registration's subscriber (init.c subscribes it): while a dense mode
 * records, the map's lines are rendered ahead for snapshots. */
XR_HIDDEN extern const struct xr_object_events xr_object_map_events;
/* Writes `<log_path>.map` (its name into map_path) from the lines rendered
 * ahead, when shared objects registered: 1 written, 0 none needed, -1 with
 * errno (a part written is removed). Async-signal-safe: no allocation, no
 * lock, no stdio (a snapshot taken in a signal or crash handler). */
XR_HIDDEN int xr_objects_map_write_ready(const char *log_path, char *map_path,
                                         size_t cap);

#endif
