/* The object registry (objects.h): the executable and each registered
 * shared object, their sled maps, ids and dense id bases, the queries of the
 * LLVM 20 per-object API, and the registration a shared object makes
 * (__xray_register_dso's work, __xray_deregister_dso, the dispatch copies).
 * It calls nothing above it: what registration means to others (start the
 * trace, forget stale names, patch_premain) they do as subscribers
 * (xr_objects_subscribe). The patching API over it is patch_api.c.
 *
 * Concurrency: one mutex (cold path only) guards the table and is held by
 * every patching call while it writes an object's pages; a shared object's
 * destructor deregisters it under the same mutex before the loader unmaps
 * it, so patching never touches unmapped pages.
 *
 * Fork: the mutex is XR_LOCK_OBJECTS (fork_locks.h): a fork waits for a
 * patching call or a registration in progress, so the child gets whole
 * objects and whole sleds and a free lock; the subscribers' after_fork then
 * run in the child. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "core/objects/objects.h"

#include "core/base/report.h"
#include "core/base/runtime_state.h"
#include "core/dispatch/dso_abi.h"
#include "core/dispatch/handlers.h"
#include "core/dispatch/hot_tables.h"
#include "core/objects/dynamic_names.h"
#include "core/thread/fork_locks.h"
#include "core/thread/thread.h"
#include "xray/xray_interface.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static struct xr_object objects[XR_MAX_OBJECTS];
static uint32_t object_count; /* ids 0..object_count-1 were handed out */
/* The mode whose handlers take dense ids (FDR), NULL when none runs. */
static const char *dense_by;
/* xr_objects_id_base is defined in hot_tables.c (dense_ids_lean.c reads it). */
uint32_t xr_objects_next_id_base; /* the first dense id base not given */
static uint32_t objects_without_base; /* ids the dense space had no room for */
static uint32_t registrations; /* successful __xray_register_dso calls */

void xr_objects_lock(void) { xr_fork_lock_take(XR_LOCK_OBJECTS); }
void xr_objects_unlock(void) { xr_fork_lock_release(XR_LOCK_OBJECTS); }

/* Who hears of registrations (init.c subscribes them, in this order). */
enum { MAX_SUBSCRIBERS = 8 };
static const struct xr_object_events *subscribers[MAX_SUBSCRIBERS];
static int subscriber_count;

void xr_objects_subscribe(const struct xr_object_events *events) {
  if (subscriber_count < MAX_SUBSCRIBERS)
    subscribers[subscriber_count++] = events;
}

/* Calls hook(args...) of every subscriber that has one, in the order they
 * subscribed: TELL(registered, (o)). */
#define TELL(hook, args)                                                       \
  do {                                                                         \
    for (int i_ = 0; i_ < subscriber_count; i_++)                              \
      if (subscribers[i_]->hook)                                               \
        subscribers[i_]->hook args;                                            \
  } while (0)

/* After a change a dense mode sees (lock not held). */
static void tell_dense_changed(bool dense) {
  if (dense)
    TELL(dense_changed, ());
}

/* Fork child (see the top of this file). */
static void objects_after_fork(void) { TELL(after_fork, ()); }

struct xr_object *xr_object_get(int32_t id) {
  if (id < 0 || (uint32_t)id >= object_count || !objects[id].used)
    return NULL;
  return &objects[id];
}

/* ---- where an object lives: path, load address, build id ----------------- */
struct find_module {
  uintptr_t address; /* any address inside the object */
  struct xr_object *o;
  bool found;
};

static void copy_build_id(struct xr_object *o, const struct dl_phdr_info *info,
                          const ElfW(Phdr) *ph) {
  const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
  const unsigned char *end = p + ph->p_memsz;
  while (p + 12 <= end) {
    ElfW(Nhdr) n;
    memcpy(&n, p, sizeof n);
    size_t name = (n.n_namesz + 3) & ~3u, desc = (n.n_descsz + 3) & ~3u;
    if ((size_t)(end - p) < 12 + name + desc)
      return;
    if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(p + 12, "GNU", 4) == 0 &&
        n.n_descsz <= XR_BUILD_ID_MAX) {
      memcpy(o->build_id, p + 12 + name, n.n_descsz);
      o->build_id_size = (uint8_t)n.n_descsz;
      return;
    }
    p += 12 + name + desc;
  }
}

static int find_module_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct find_module *q = arg;
  bool inside = false;
  for (size_t i = 0; i < info->dlpi_phnum && !inside; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    inside = ph->p_type == PT_LOAD && q->address >= start && q->address < start + ph->p_memsz;
  }
  if (!inside)
    return 0;
  q->found = true;
  q->o->base = info->dlpi_addr;
  q->o->build_id_size = 0;
  for (size_t i = 0; i < info->dlpi_phnum && q->o->build_id_size == 0; i++)
    if (info->dlpi_phdr[i].p_type == PT_NOTE)
      copy_build_id(q->o, info, &info->dlpi_phdr[i]);
  /* The runtime calls its libxray-dso.a may make are weak references, so
   * their names say its generation (docs/core.md, "The shared-object ABI"):
   * one that jumps to the executable's trampolines and asks for no dispatch
   * copy is of generation 0. LLVM 20's objects name neither (their
   * trampolines read the exported handler variables). */
  static const char *const calls[] = {"__xray_FunctionEntry", "__xray_dso_dispatch",
                                      "__xray_dso_dense_dispatch"};
  q->o->forwards_packed = xr_module_dynamic_names(info, calls, 3) == 1; /* the first only */
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (name[0] == '\0' && q->o->id == 0) { /* the executable: the loader has no name */
    ssize_t n = readlink("/proc/self/exe", q->o->path, sizeof q->o->path - 1);
    q->o->path[n > 0 ? n : 0] = '\0';
  } else {
    size_t n = strnlen(name, sizeof q->o->path - 1);
    memcpy(q->o->path, name, n);
    q->o->path[n] = '\0';
  }
  return 1;
}

/* Fills o's base, path and build id from the module holding `address`. */
static void describe(struct xr_object *o, uintptr_t address) {
  struct find_module q = {address, o, false};
  dl_iterate_phdr(find_module_cb, &q);
  if (!q.found)
    o->path[0] = '\0';
}

/* ---- registration ---------------------------------------------------------- */
void xr_self_trampolines(uintptr_t out[XR_T_CALL_COUNT]) {
  out[XR_T_ENTRY] = (uintptr_t)&__xray_FunctionEntry;
  out[XR_T_EXIT] = (uintptr_t)&__xray_FunctionExit;
  out[XR_T_TAIL] = (uintptr_t)&__xray_FunctionTailExit;
  out[XR_T_ARG] = (uintptr_t)&__xray_ArgLoggerEntry;
}

void xr_objects_register_self(void) {
  if (xr_thread_on_fork_child(objects_after_fork) != 0)
    xr_report(XR_ERROR, "no fork hook left: a fork child may find patching busy");
  xr_objects_lock();
  struct xr_object *o = &objects[0];
  if (!o->used) {
    o->id = 0;
    o->map = &xr_self_map;
    xr_self_trampolines(o->trampolines);
    o->used = o->loaded = true;
    o->generation = 1;
    for (int i = 1; i < XR_MAX_OBJECTS; i++)
      xr_objects_id_base[i] = XR_NO_ID_BASE;
    o->id_base = 0; /* dense ids of the executable = its packed ids */
    xr_objects_next_id_base = (uint32_t)xr_self_map.function_count;
    /* Without a map (a host built without -fxray-instrument) any address
     * of the runtime, which the executable links, finds the executable. */
    describe(o, xr_self_map.function_count ? xr_self_map.min_sled
                                           : (uintptr_t)&xr_objects_register_self);
    object_count = 1;
  }
  xr_objects_unlock();
}

/* The id for a new shared object (lock held): the id it had before when the
 * same file at the same offsets is loaded again (records that name the old
 * id stay true: same functions), else the next id never handed out. Unloaded
 * ids of other files are never reused, so no record can name two objects.
 * -1 when all 255 are taken. */
static int32_t pick_id(const struct xr_object *fresh) {
  for (uint32_t i = 1; i < object_count; i++) {
    const struct xr_object *o = &objects[i];
    if (!o->loaded && o->from_dso && fresh->path[0] != '\0' &&
        strcmp(o->path, fresh->path) == 0 &&
        o->map->function_count == fresh->map->function_count &&
        o->map->sled_count == fresh->map->sled_count &&
        o->map->min_sled - o->base == fresh->map->min_sled - fresh->base)
      return (int32_t)i;
  }
  return object_count < XR_MAX_OBJECTS ? (int32_t)object_count : -1;
}

static struct xr_sled_map dso_sled_maps[XR_MAX_OBJECTS]; /* shared objects' */

/* Whether the running dense mode cannot trace object o (lock held). */
static bool not_dense(const struct xr_object *o) {
  return o->loaded && o->map->function_count != 0 &&
         (o->id_base == XR_NO_ID_BASE || o->packed_dispatch || o->forwards_packed);
}

/* Why object o (lock held) is not traced by the dense mode, at verbosity 1. */
static void say_not_dense(const struct xr_object *o) {
  if (!not_dense(o))
    return;
  if (o->forwards_packed)
    xr_report(XR_INFO, "%s: object %d ('%s') is not traced and stays unpatched: it was "
              "built with a libxray-dso.a whose trampolines pass packed ids (generation 0), "
              "which %s cannot record (link it with this one)", dense_by, o->id, o->path,
              dense_by);
  else if (o->id_base == XR_NO_ID_BASE)
    xr_report(XR_INFO, "%s: object %d ('%s') is not traced: its %zu functions do not "
              "fit in the %u dense ids (objects without ids so far: %u)", dense_by, o->id,
              o->path, o->map->function_count, XR_DENSE_ID_LIMIT - 1, objects_without_base);
  else
    xr_report(XR_INFO, "%s: object %d ('%s') is not traced: it was built with a "
              "libxray-dso.a without dense paths (link it with this one)", dense_by,
              o->id, o->path);
}

/* The dense id base of a new object id (lock held): the next free run of
 * its function count, or XR_NO_ID_BASE (counted; said now when a dense mode
 * runs, else when one starts) when the ids would reach XR_DENSE_ID_LIMIT. */
static uint32_t new_id_base(const struct xr_object *fresh) {
  size_t count = fresh->map->function_count;
  if (count >= XR_DENSE_ID_LIMIT - xr_objects_next_id_base) {
    objects_without_base++;
    return XR_NO_ID_BASE;
  }
  uint32_t base = xr_objects_next_id_base;
  xr_objects_next_id_base += (uint32_t)count;
  return base;
}

static int32_t register_locked(struct xr_object *fresh) {
  int32_t id = pick_id(fresh);
  if (id < 0) {
    xr_report(XR_ERROR, "shared object '%s' is not traced: %d objects are "
              "registered, the most packed ids can name", fresh->path, XR_MAX_OBJECTS - 1);
    return -1;
  }
  struct xr_object *o = &objects[id];
  if (o->used) {
    xr_sled_map_free(o->map); /* the same file again: its old map goes */
    TELL(replaced, (id)); /* and what others derived */
  }
  uint32_t generation = o->generation;
  uint32_t id_base = o->used ? o->id_base : new_id_base(fresh);
  dso_sled_maps[id] = *fresh->map;
  *o = *fresh;
  o->id = id;
  o->map = &dso_sled_maps[id];
  o->generation = generation + 1;
  o->id_base = id_base;
  __atomic_store_n(&xr_objects_id_base[id], id_base, __ATOMIC_RELAXED);
  o->used = o->loaded = o->from_dso = true;
  if ((uint32_t)id == object_count)
    object_count++;
  return id;
}

int32_t xr_objects_register(const void *sleds_begin, const void *sleds_end,
                            const void *fn_index_begin, const void *fn_index_end,
                            struct xr_dso_trampolines trampolines) {
  if (!xr_runtime_initialized()) {
    xr_report(XR_INFO, "a shared object has XRay sleds, but the executable's "
              "instrumentation map is not valid: the object is not traced");
    return -1;
  }
  /* Decoded outside the lock (mmap). */
  struct xr_sled_map map;
  struct xr_object fresh;
  memset(&fresh, 0, sizeof fresh);
  if (xr_sled_map_decode(sleds_begin, sleds_end, fn_index_begin, fn_index_end, &map) != 0 ||
      map.function_count > XR_FUNCTION_MASK) {
    xr_report(XR_ERROR, "a shared object's instrumentation map is not valid "
              "(or has more than %u functions): the object is not traced",
              XR_FUNCTION_MASK);
    if (map.sleds)
      xr_sled_map_free(&map);
    return -1;
  }
  if (!trampolines.entry || !trampolines.exit || !trampolines.tail_exit ||
      !trampolines.log_args) {
    xr_report(XR_ERROR, "a shared object registered without trampolines: not traced");
    xr_sled_map_free(&map);
    return -1;
  }
  fresh.map = &map;
  fresh.id = -1;
  fresh.trampolines[XR_T_ENTRY] = (uintptr_t)trampolines.entry;
  fresh.trampolines[XR_T_EXIT] = (uintptr_t)trampolines.exit;
  fresh.trampolines[XR_T_TAIL] = (uintptr_t)trampolines.tail_exit;
  fresh.trampolines[XR_T_ARG] = (uintptr_t)trampolines.log_args;
  describe(&fresh, map.min_sled);
  /* Subscribers that take the lock (a mode's init: in a host without a
   * map the first object starts the trace) hear of it before. */
  TELL(coming, ());

  xr_objects_lock();
  int32_t id = register_locked(&fresh);
  if (id < 0) {
    xr_objects_unlock();
    xr_sled_map_free(&map);
    return -1;
  }
  registrations++;
  xr_report(XR_DEBUG, "registered object %d: '%s' at %#lx, %zu functions", id,
            objects[id].path, (unsigned long)objects[id].base, map.function_count);
  if (dense_by != NULL && (objects[id].id_base == XR_NO_ID_BASE || objects[id].forwards_packed))
    say_not_dense(&objects[id]);
  TELL(registered, (&objects[id]));
  bool dense = dense_by != NULL;
  xr_objects_unlock();
  tell_dense_changed(dense);
  return id;
}

XR_API bool __xray_deregister_dso(int32_t id) {
  if (!xr_runtime_initialized() || id <= 0)
    return false;
  xr_objects_lock();
  struct xr_object *o = xr_object_get(id);
  bool ok = o != NULL && o->from_dso;
  if (ok && o->loaded) {
    /* Nothing is unpatched: the pages go away with the object. The decoded
     * map stays (names and maps of traces that name it). */
    o->loaded = false;
    xr_handler_dso_dispatch(id, NULL, NULL, false); /* no store reaches its pages after this */
    TELL(going, (o));
    xr_report(XR_DEBUG, "deregistered object %d ('%s')", id, o->path);
  }
  bool dense = ok && dense_by != NULL;
  xr_objects_unlock();
  tell_dense_changed(dense);
  return ok;
}

/* The object's dispatch copy (both ABI calls), with its dense paths when
 * it has an id base to give them (the offset is written before any slot
 * can lead to them). */
static void dispatch(int32_t id, void *volatile *slots, const struct xr_dso_dense *dense,
                     bool dense_sp) {
  if (slots == NULL || !xr_runtime_initialized())
    return;
  xr_objects_lock();
  struct xr_object *o = xr_object_get(id);
  if (o != NULL && o->loaded && o->from_dso) {
    if (dense != NULL && (o->id_base == XR_NO_ID_BASE || dense->id_offset == NULL ||
                          dense->handlers == NULL))
      dense = NULL;
    if (dense != NULL)
      __atomic_store_n(dense->id_offset,
                       (int32_t)(o->id_base - ((uint32_t)id << XR_OBJECT_SHIFT)), __ATOMIC_RELAXED);
    o->packed_dispatch = dense == NULL;
    xr_handler_dso_dispatch(id, slots, dense, dense_sp);
    if (dense_by != NULL && o->packed_dispatch && o->id_base != XR_NO_ID_BASE)
      say_not_dense(o);
  }
  xr_objects_unlock();
}
XR_API void __xray_dso_dispatch(int32_t id, void *volatile *slots) {
  dispatch(id, slots, NULL, false);
}
XR_API void __xray_dso_dense_dispatch(int32_t id, const struct xr_dso_dense *dense) {
  if (dense != NULL)
    dispatch(id, dense->slots, dense, false);
}
XR_API void __xray_dso_dense_dispatch_sp(int32_t id, const struct xr_dso_dense *dense) {
  if (dense != NULL)
    dispatch(id, dense->slots, dense, true);
}

uint32_t xr_objects_registrations(void) { return registrations; }

void xr_objects_dense_recording(const char *who) {
  xr_objects_lock();
  dense_by = who;
  for (uint32_t i = 1; who != NULL && i < object_count; i++)
    say_not_dense(&objects[i]);
  xr_objects_unlock();
  tell_dense_changed(who != NULL);
}

bool xr_object_left_unpatched(const struct xr_object *o) {
  return o->forwards_packed && dense_by != NULL;
}

size_t xr_objects_not_dense(void) {
  size_t n = 0;
  xr_objects_lock();
  for (uint32_t i = 1; dense_by != NULL && i < object_count; i++)
    n += not_dense(&objects[i]);
  xr_objects_unlock();
  return n;
}

int32_t xr_objects_packed_of_dense(int32_t dense) {
  if (dense <= 0)
    return -1;
  if ((size_t)dense <= xr_self_map.function_count)
    return dense; /* the executable: base 0, never changes */
  int32_t packed = -1;
  xr_objects_lock();
  for (uint32_t i = 1; i < object_count && packed < 0; i++) {
    const struct xr_object *o = &objects[i];
    if (o->used && o->id_base != XR_NO_ID_BASE && (uint32_t)dense > o->id_base &&
        (uint32_t)dense - o->id_base <= o->map->function_count)
      packed = xr_pack_id((int32_t)((uint32_t)dense - o->id_base), (int32_t)i);
  }
  xr_objects_unlock();
  return packed;
}

/* ---- queries ----------------------------------------------------------------- */
XR_API uintptr_t __xray_function_address_in_object(int32_t FuncId, int32_t ObjId) {
  if (!xr_runtime_initialized())
    return 0;
  uintptr_t address = 0;
  xr_objects_lock();
  struct xr_object *o = xr_object_get(ObjId);
  if (o != NULL && o->loaded && FuncId >= 1 && (size_t)FuncId <= o->map->function_count)
    address = o->map->functions[FuncId - 1].address;
  xr_objects_unlock();
  return address;
}
XR_API uintptr_t __xray_function_address(int32_t FuncId) {
  return __xray_function_address_in_object(xr_id_function(FuncId), xr_id_object(FuncId));
}

XR_API size_t __xray_max_function_id_in_object(int32_t ObjId) {
  if (!xr_runtime_initialized())
    return 0;
  xr_objects_lock();
  struct xr_object *o = xr_object_get(ObjId);
  size_t n = o ? o->map->function_count : 0;
  xr_objects_unlock();
  return n;
}
/* Object 0 never goes away: no lock needed. */
XR_API size_t __xray_max_function_id(void) {
  return xr_runtime_initialized() ? xr_self_map.function_count : 0;
}

XR_API size_t __xray_num_objects(void) { return xr_objects_count(); }
size_t xr_objects_count(void) {
  if (!xr_runtime_initialized())
    return 0;
  xr_objects_lock();
  size_t n = object_count;
  xr_objects_unlock();
  return n;
}

bool xr_object_info(int32_t id, struct xr_object_info *out) {
  xr_objects_lock();
  const struct xr_object *o = xr_object_get(id);
  if (o != NULL)
    *out = (struct xr_object_info){id,       o->loaded,          o->base,
                                   o->path,  o->build_id,        o->build_id_size,
                                   o->map->function_count, o->id_base, o->map,
                                   o->generation};
  xr_objects_unlock();
  return o != NULL;
}

XR_API int32_t __xray_unpack_function_id(int32_t PackedId) { return xr_id_function(PackedId); }
XR_API int32_t __xray_unpack_object_id(int32_t PackedId) { return xr_id_object(PackedId); }
XR_API int32_t __xray_pack_id(int32_t FuncId, int32_t ObjId) { return xr_pack_id(FuncId, ObjId); }
