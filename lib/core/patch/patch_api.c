/* The patching API, the one door to patching: __xray_patch and friends
 * (all, one object, one function, a range), the LLVM 20 per-object calls,
 * patching by name (include/xray/xray_names.h), patch_premain for objects
 * that register later, and the control socket's commands (lib/control) all
 * patch through here, and so does the overhead budget (its culling steps).
 * It sits above the registry (objects.c), the names (names.c) and the page
 * patcher (patching.c); none of them calls it.
 *
 * A second patching call while one runs returns ONGOING (as compiler-rt
 * does); registration waits for the registry lock instead. The busy flag is
 * set before the lock is taken and cleared after it is released, so a fork
 * child can inherit it set by a thread that does not exist there: the fork
 * hook clears it unless the forking thread itself was in a patching call (a
 * signal handler forked; that call goes on in the child and clears it). */
#include "core/patch/patch_api.h"

#include "core/base/report.h"
#include "core/base/runtime_state.h"
#include "core/match/glob.h"
#include "core/names/names.h"
#include "core/names/names_api.h"
#include "core/objects/objects.h"
#include "core/options/options.h"
#include "core/patch/patching.h"
#include "xray/xray_interface.h"
#include "xray/xray_names.h"

#include <sys/mman.h>

static int patching_busy; /* a patching API call runs: others get ONGOING */
static XR_TLS bool patching_here; /* this thread's call set patching_busy */

/* ---- pinned and culled: what the user chose, what the budget took -------- */
/* Per object, one byte per function: marks[id - 1] holds MARK_* bits, and
 * the next function-count bytes are where a culling step selects. mmap'd
 * at the first mark, sized by the object's function count, dropped when
 * the object goes, registers again or is unpatched whole for a dense mode
 * (so a new registration of an id starts clean); read and written under
 * the registry lock. A fork child keeps them with the sleds they describe. */
enum { MARK_PINNED = 1, MARK_CULLED = 2 };
static struct {
  uint8_t *v;
  size_t count;
} marks[XR_MAX_OBJECTS];

static void marks_drop(int32_t object) {
  if (marks[object].v != NULL)
    munmap(marks[object].v, 2 * marks[object].count);
  marks[object].v = NULL;
  marks[object].count = 0;
}

/* Object o's marks, made (all clear) on first use; NULL when out of memory. */
static uint8_t *marks_of(const struct xr_object *o) {
  size_t count = o->map->function_count;
  if (marks[o->id].v != NULL && marks[o->id].count == count)
    return marks[o->id].v;
  marks_drop(o->id);
  void *m = mmap(NULL, 2 * count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  marks[o->id].v = m;
  marks[o->id].count = count;
  return m;
}

/* What a user's call means for functions first..last of o (valid ids;
 * only those with selected[id - 1] set when selected is not NULL): the
 * budget's culling is undone (the user's choice wins), an unpatching
 * unpins, and a patching pins what pins[id - 1] names (pin_all: all of
 * them): the functions chosen by exact name or id. Lock held. */
static void user_marks(const struct xr_object *o, int32_t first, int32_t last,
                       const uint8_t *selected, const uint8_t *pins, bool pin_all,
                       bool enable) {
  bool pinning = enable && (pin_all || pins != NULL);
  if (marks[o->id].v == NULL && !pinning)
    return; /* nothing marked, nothing to mark */
  uint8_t *m = marks_of(o);
  if (m == NULL) {
    xr_report(XR_ERROR, "no memory for the functions pinned by name in object %d: "
              "the overhead budget may unpatch them", o->id);
    return;
  }
  for (int32_t id = first; id <= last; id++) {
    if (selected != NULL && !selected[id - 1])
      continue;
    m[id - 1] &= (uint8_t)~MARK_CULLED;
    if (!enable)
      m[id - 1] &= (uint8_t)~MARK_PINNED;
    else if (pin_all || (pins != NULL && pins[id - 1]))
      m[id - 1] |= MARK_PINNED;
  }
}

/* Object o's xray_patch / xray_skip selection (NULL: everything). Lock
 * held, so a shared object's names are added from o itself (xr_names_table
 * would ask xr_object_info, which takes the lock). */
static const uint8_t *option_selection(struct xr_object *o, int *status) {
  *status = XR_NAMES_OK;
  if (!xr_names_option_active())
    return NULL;
  if (o->id != 0) {
    *status = xr_names_add_object(o->id, o->map, o->path, o->base);
    if (*status != XR_NAMES_OK)
      return NULL;
  }
  return xr_names_option_selection(o->id, status);
}

void xr_patch_match_options(struct xr_options_scope *out) {
  *out = (struct xr_options_scope){0, 0, 0, false};
  xr_objects_lock();
  for (int32_t i = 0; i < XR_MAX_OBJECTS; i++) {
    struct xr_object *o = xr_object_get(i);
    if (o == NULL)
      continue;
    out->shared_objects += i > 0;
    if (o->map->function_count == 0)
      continue;
    int status;
    option_selection(o, &status);
    out->incomplete |= status != XR_NAMES_OK;
    out->functions += o->map->function_count;
  }
  out->registrations = xr_objects_registrations();
  xr_objects_unlock();
}

/* ---- all, one object, one function, a range ------------------------------------ */
/* Opens a patching call: NOT_INITIALIZED, ONGOING, or SUCCESS with the flag
 * set and the lock held (close_call() undoes both). */
static XRayPatchingStatus open_call(void) {
  if (!xr_runtime_initialized())
    return NOT_INITIALIZED;
  if (__atomic_exchange_n(&patching_busy, 1, __ATOMIC_ACQUIRE))
    return ONGOING;
  patching_here = true;
  xr_objects_lock();
  return SUCCESS;
}
static void close_call(void) {
  xr_objects_unlock();
  patching_here = false;
  __atomic_store_n(&patching_busy, 0, __ATOMIC_RELEASE);
}

/* A loaded object (lock held), or NULL with a message. */
static struct xr_object *loaded_object(int32_t id) {
  struct xr_object *o = xr_object_get(id);
  if (o == NULL || !o->loaded) {
    xr_report(XR_INFO, "object %d is %s", id, o ? "not loaded any more" : "not a valid object id");
    return NULL;
  }
  return o;
}

/* Every sled write of the API goes through here (lock held). Patching an
 * object that must stay unpatched while a dense mode records (objects.h,
 * xr_object_left_unpatched) is FAILED when its functions are asked for by
 * id or name; __xray_patch and patch_premain skip it instead (it was said
 * once, when the mode started or the object registered). */
static XRayPatchingStatus rewrite_kinds(struct xr_object *o, int32_t first, int32_t last,
                                        const uint8_t *selected, unsigned kinds, bool enable) {
  if (enable && xr_object_left_unpatched(o))
    return FAILED;
  return (XRayPatchingStatus)xr_patch_object_functions(o, first, last, selected, kinds, enable);
}
/* The user's calls rewrite every kind of sled. */
static XRayPatchingStatus rewrite(struct xr_object *o, int32_t first, int32_t last,
                                  const uint8_t *selected, bool enable) {
  return rewrite_kinds(o, first, last, selected, XR_SLEDS_ALL, enable);
}

/* Functions first..last of object obj, chosen by id: a patching pins them. */
static XRayPatchingStatus patch_range(int32_t obj, int32_t first, int32_t last, bool enable) {
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s;
  struct xr_object *o = loaded_object(obj);
  s = o == NULL                      ? FAILED
      : o->map->function_count == 0 ? NOT_INITIALIZED /* a host's object 0 */
                                     : rewrite(o, first, last, NULL, enable);
  if (o != NULL && first >= 1 && first <= last && (size_t)last <= o->map->function_count)
    user_marks(o, first, last, NULL, NULL, true, enable);
  close_call();
  return s;
}

/* What "patch everything" means for object o: everything, or with
 * xray_patch / xray_skip set, what they select (names.c builds that
 * selection once per object); what an xray_patch pattern without wildcards
 * chose is pinned. Lock held. */
static XRayPatchingStatus patch_whole(struct xr_object *o, bool enable) {
  const uint8_t *selected = NULL;
  if (enable) {
    int status;
    selected = option_selection(o, &status);
    if (status != XR_NAMES_OK) {
      xr_report(XR_ERROR, "xray_patch/xray_skip: the name table could not be "
                "built (status %d); nothing was patched", status);
      return FAILED;
    }
  }
  int32_t last = (int32_t)o->map->function_count;
  XRayPatchingStatus s = rewrite(o, 1, last, selected, enable);
  user_marks(o, 1, last, selected, selected ? xr_names_option_pins(o->id) : NULL, false, enable);
  return s;
}

/* Every loaded object; FAILED if one failed (the others are still done),
 * NOT_INITIALIZED when no loaded object has a sled (a host built without
 * -fxray-instrument before its first instrumented object: compiler-rt 20's
 * status for objects without sleds). */
static XRayPatchingStatus patch_all(bool enable) {
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s;
  bool any = false;
  for (int32_t i = 0; i < XR_MAX_OBJECTS; i++) {
    struct xr_object *o = xr_object_get(i);
    if (o == NULL || !o->loaded || o->map->function_count == 0)
      continue;
    any = true;
    if (enable && xr_object_left_unpatched(o))
      continue;
    if (patch_whole(o, enable) != SUCCESS)
      s = FAILED;
  }
  close_call();
  return any ? s : NOT_INITIALIZED;
}

static XRayPatchingStatus patch_object(int32_t obj, bool enable) {
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s;
  struct xr_object *o = loaded_object(obj);
  s = o == NULL                      ? FAILED
      : o->map->function_count == 0 ? NOT_INITIALIZED
                                     : patch_whole(o, enable);
  close_call();
  return s;
}

/* Patches (enable) or unpatches the functions of object `object` whose
 * selected[id - 1] is non-zero (one entry per function of the object), with
 * one protection change per run of pages; a patching pins those with
 * pins[id - 1] set (may be NULL). An XRayPatchingStatus as
 * __xray_patch_function_range; SUCCESS when nothing is selected; FAILED for
 * an object not loaded. */
static int patch_selected(int32_t object, const uint8_t *selected, const uint8_t *pins,
                          bool enable) {
  int32_t first = 0, last = 0;
  if (!xr_runtime_initialized())
    return NOT_INITIALIZED;
  xr_objects_lock();
  struct xr_object *o = xr_object_get(object);
  size_t count = o != NULL && o->loaded ? o->map->function_count : 0;
  xr_objects_unlock();
  for (size_t i = 0; i < count; i++)
    if (selected[i]) {
      last = (int32_t)i + 1;
      if (first == 0)
        first = last;
    }
  if (first == 0)
    return SUCCESS; /* nothing selected: nothing to write */
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s;
  struct xr_object *o2 = loaded_object(object); /* still there, lock held */
  bool there = o2 != NULL && o2->map->function_count >= (size_t)last;
  s = there ? rewrite(o2, first, last, selected, enable) : FAILED;
  if (there)
    user_marks(o2, first, last, selected, pins, false, enable);
  close_call();
  return s;
}

XR_API XRayPatchingStatus __xray_patch(void) { return patch_all(true); }
XR_API XRayPatchingStatus __xray_unpatch(void) { return patch_all(false); }
XR_API XRayPatchingStatus __xray_patch_object(int32_t ObjId) { return patch_object(ObjId, true); }
XR_API XRayPatchingStatus __xray_unpatch_object(int32_t ObjId) {
  return patch_object(ObjId, false);
}

XR_API XRayPatchingStatus __xray_patch_function(int32_t FuncId) {
  return patch_range(xr_id_object(FuncId), xr_id_function(FuncId), xr_id_function(FuncId), true);
}
XR_API XRayPatchingStatus __xray_unpatch_function(int32_t FuncId) {
  return patch_range(xr_id_object(FuncId), xr_id_function(FuncId), xr_id_function(FuncId),
                     false);
}
XR_API XRayPatchingStatus __xray_patch_function_in_object(int32_t FuncId, int32_t ObjId) {
  return patch_range(ObjId, FuncId, FuncId, true);
}
XR_API XRayPatchingStatus __xray_unpatch_function_in_object(int32_t FuncId, int32_t ObjId) {
  return patch_range(ObjId, FuncId, FuncId, false);
}

/* Both ends must name the same object. */
static XRayPatchingStatus packed_range(int32_t first, int32_t last, bool enable) {
  if (!xr_runtime_initialized())
    return NOT_INITIALIZED;
  if (xr_id_object(first) != xr_id_object(last)) {
    xr_report(XR_INFO, "function id range %#x..%#x spans two objects", (unsigned)first,
              (unsigned)last);
    return FAILED;
  }
  return patch_range(xr_id_object(first), xr_id_function(first), xr_id_function(last), enable);
}
XR_API XRayPatchingStatus __xray_patch_function_range(int32_t FirstId, int32_t LastId) {
  return packed_range(FirstId, LastId, true);
}
XR_API XRayPatchingStatus __xray_unpatch_function_range(int32_t FirstId, int32_t LastId) {
  return packed_range(FirstId, LastId, false);
}

/* ---- by name ----------------------------------------------------------------- */
struct patch_ctx {
  const char *patterns;
  bool enable;
  long matched;
  int status; /* the first failure */
};

/* Selects object's functions the patterns match (selected, the first
 * t->count bytes) and, when patching, those an exact pattern names (pins,
 * the next t->count: they are pinned), and (un)patches them. */
static int patch_object_matching(int32_t object, const struct xr_name_table *t, void *arg) {
  struct patch_ctx *c = arg;
  struct xr_object_info info;
  if (t->count == 0 || !xr_object_info(object, &info) || !info.loaded)
    return 0; /* an object gone with dlclose keeps its names, not its code */
  uint8_t *selected = mmap(NULL, 2 * t->count, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (selected == MAP_FAILED) {
    c->status = c->status ? c->status : XRAY_NAMES_NO_MEMORY;
    return 0;
  }
  uint8_t *pins = selected + t->count;
  size_t n = xr_names_mark(t, c->patterns, selected, 1, NULL);
  size_t pinned = n != 0 && c->enable ? xr_names_mark_exact(t, c->patterns, pins, 1) : 0;
  int s = n == 0 ? SUCCESS : patch_selected(object, selected, pinned ? pins : NULL, c->enable);
  munmap(selected, 2 * t->count);
  if (s == SUCCESS)
    c->matched += (long)n;
  else if (c->status == 0)
    c->status = s == ONGOING           ? XRAY_NAMES_BUSY
                : s == NOT_INITIALIZED ? XRAY_NAMES_NOT_INITIALIZED
                                       : XRAY_NAMES_FAILED;
  return c->status == XRAY_NAMES_BUSY; /* another thread patches: stop */
}

static int patch_matching(const char *patterns, bool enable) {
  if (!xr_runtime_initialized())
    return XRAY_NAMES_NOT_INITIALIZED;
  if (patterns == NULL || xr_pattern_count(patterns) == 0)
    return XRAY_NAMES_INVALID;
  struct patch_ctx c = {patterns, enable, 0, 0};
  int status = xr_names_each_table(patch_object_matching, &c);
  if (status < 0)
    return status;
  if (c.status != 0)
    return c.status;
  return c.matched > INT32_MAX ? INT32_MAX : (int)c.matched;
}

XR_API int __xray_patch_matching(const char *patterns) {
  return patch_matching(patterns, true);
}

XR_API int __xray_unpatch_matching(const char *patterns) {
  return patch_matching(patterns, false);
}

/* ---- the overhead budget's door ------------------------------------------ */
long xr_patch_function_states(int32_t object, uint8_t *out, size_t count) {
  if (!xr_runtime_initialized())
    return -1;
  xr_objects_lock();
  const struct xr_object *o = xr_object_get(object);
  long filled = -1;
  if (o != NULL && o->loaded) {
    if (count > o->map->function_count)
      count = o->map->function_count;
    const uint8_t *m = marks[object].v;
    for (size_t i = 0; i < count; i++) {
      unsigned patched = xr_function_sled_states(o, (int32_t)i + 1).patched;
      uint8_t mark = m != NULL ? m[i] : 0;
      out[i] = (uint8_t)((patched & XR_SLEDS_ENTRY ? XR_FN_PATCHED : 0) |
                         (patched & XR_SLEDS_EXIT ? XR_FN_EXITS_PATCHED : 0) |
                         (mark & MARK_PINNED ? XR_FN_PINNED : 0) |
                         (mark & MARK_CULLED ? XR_FN_CULLED : 0));
    }
    filled = (long)count;
  }
  xr_objects_unlock();
  return filled;
}

/* Whether a step acts on a function with these marks and sleds. */
static bool step_takes(enum xr_cull_step step, uint8_t mark, struct xr_sled_states k) {
  switch (step) {
  case XR_CULL_ENTRIES:
    return !(mark & MARK_PINNED) && (k.patched & XR_SLEDS_ENTRY);
  case XR_CULL_EXITS:
    return (mark & MARK_CULLED) && (k.patched & XR_SLEDS_EXIT);
  case XR_UNCULL:
    return mark & MARK_CULLED;
  }
  return false;
}

/* One step over o (lock held, busy flag set): the functions it takes are
 * selected in work[], rewritten, and then their marks and *changed follow
 * what the sleds say now, so a step that failed part-way (a page that could
 * not be written) leaves marks that are true. */
static XRayPatchingStatus cull_step(struct xr_object *o, const uint8_t *selected,
                                    enum xr_cull_step step, size_t *changed) {
  size_t count = o->map->function_count;
  uint8_t *m = marks_of(o);
  if (m == NULL) {
    xr_report(XR_ERROR, "overhead budget: no memory for the marks of object %d", o->id);
    return FAILED;
  }
  uint8_t *work = m + count;
  int32_t first = 0, last = 0;
  for (size_t i = 0; i < count; i++) {
    work[i] = selected[i] && step_takes(step, m[i], xr_function_sled_states(o, (int32_t)i + 1));
    if (work[i]) {
      last = (int32_t)i + 1;
      first = first ? first : last;
    }
  }
  if (first == 0)
    return SUCCESS;
  XRayPatchingStatus s;
  if (step == XR_UNCULL) {
    /* Exits first: an entry patched before its exits could log a call
     * that never ends in the log. Entries only where every exit made it. */
    s = rewrite_kinds(o, first, last, work, XR_SLEDS_EXIT, true);
    for (int32_t id = first; id <= last; id++)
      work[id - 1] &= !(xr_function_sled_states(o, id).unpatched & XR_SLEDS_EXIT);
    XRayPatchingStatus entries = rewrite_kinds(o, first, last, work, XR_SLEDS_ENTRY, true);
    s = s == SUCCESS ? entries : s;
  } else {
    unsigned kinds = step == XR_CULL_ENTRIES ? XR_SLEDS_ENTRY : XR_SLEDS_EXIT;
    s = rewrite_kinds(o, first, last, work, kinds, false);
  }
  for (int32_t id = first; id <= last; id++) {
    if (!work[id - 1])
      continue;
    unsigned patched = xr_function_sled_states(o, id).patched;
    bool done = step == XR_CULL_ENTRIES ? !(patched & XR_SLEDS_ENTRY)
                : step == XR_CULL_EXITS ? !(patched & XR_SLEDS_EXIT)
                                        : (patched & XR_SLEDS_ENTRY) != 0;
    if (!done)
      continue;
    ++*changed;
    if (step == XR_CULL_ENTRIES)
      m[id - 1] |= MARK_CULLED;
    else if (step == XR_UNCULL)
      m[id - 1] &= (uint8_t)~MARK_CULLED;
  }
  return s;
}

int xr_patch_cull(int32_t object, const uint8_t *selected, enum xr_cull_step step,
                  size_t *changed) {
  *changed = 0;
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s == ONGOING ? ONGOING : FAILED;
  struct xr_object *o = loaded_object(object);
  s = o != NULL && o->map->function_count != 0 ? cull_step(o, selected, step, changed) : FAILED;
  close_call();
  return s;
}

/* ---- argument capture's door ---------------------------------------------- */
_Static_assert((int)XR_ARGS_AT_ENTRY == (int)XR_WANT_ENTRY &&
                   (int)XR_ARGS_AT_EXIT == (int)XR_WANT_EXIT,
               "patching.h's want bits are the door's");

static xr_patch_args_fill_fn args_fill; /* lib/args's */

int xr_patch_set_args(int32_t object, const uint8_t *want, size_t count) {
  XRayPatchingStatus s = open_call();
  if (s != SUCCESS)
    return s == ONGOING ? ONGOING : FAILED;
  struct xr_object *o = loaded_object(object);
  s = o == NULL ? FAILED : (XRayPatchingStatus)xr_patch_object_args(o, want, want ? count : 0);
  close_call();
  return s;
}

void xr_patch_args_provider(xr_patch_args_fill_fn fill) {
  __atomic_store_n(&args_fill, fill, __ATOMIC_RELEASE);
}

/* The provider's bits for o, registering now (lock held), before anything
 * patches it. */
static void args_of_new_object(struct xr_object *o) {
  size_t count = o->map->function_count;
  xr_patch_args_fill_fn fill = __atomic_load_n(&args_fill, __ATOMIC_ACQUIRE);
  if (fill == NULL || count == 0)
    return;
  uint8_t *want = mmap(NULL, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (want == MAP_FAILED || (fill(o, want, count),
                             xr_patch_object_args(o, want, count) != SUCCESS))
    xr_report(XR_ERROR, "argument capture: object %d ('%s') could not take its SPEC", o->id,
              o->path);
  if (want != MAP_FAILED)
    munmap(want, count);
}

/* ---- registration's subscriber ----------------------------------------------- */
/* patch_premain reaches objects loaded later, narrowed by xray_patch /
 * xray_skip like the executable (lock held). */
static void registered(struct xr_object *o) {
  marks_drop(o->id); /* the id starts clean */
  args_of_new_object(o);
  if (!xr_flags.patch_premain || xr_object_left_unpatched(o))
    return;
  int status;
  const uint8_t *selected = option_selection(o, &status);
  int32_t last = (int32_t)o->map->function_count;
  if (status != XR_NAMES_OK) {
    xr_report(XR_ERROR, "xray_patch/xray_skip: no names for object %d ('%s', status %d); "
              "it is not patched", o->id, o->path, status);
    return;
  }
  if (rewrite(o, 1, last, selected, true) != SUCCESS)
    xr_report(XR_ERROR, "patch_premain: patching object %d ('%s') failed", o->id, o->path);
  if (last != 0)
    user_marks(o, 1, last, selected, selected ? xr_names_option_pins(o->id) : NULL, false, true);
}

/* o goes away: its marks and what patching kept for it. */
static void going(struct xr_object *o) {
  marks_drop(o->id);
  xr_patch_state_free(o);
}

size_t xr_patch_count_patched(int32_t id) {
  xr_objects_lock();
  const struct xr_object *o = xr_object_get(id);
  size_t n = o != NULL ? xr_patched_functions(o) : 0;
  xr_objects_unlock();
  return n;
}

/* A dense mode started (or an object came or went while it records): the
 * objects that must stay unpatched meanwhile lose the sleds patched before,
 * before the mode installs its handlers (xr_objects_dense_recording tells
 * this first). Takes the lock as registration does, not the busy flag. */
static void dense_changed(void) {
  xr_objects_lock();
  for (int32_t i = 1; i < XR_MAX_OBJECTS; i++) {
    struct xr_object *o = xr_object_get(i);
    if (o == NULL || !o->loaded || !xr_object_left_unpatched(o))
      continue;
    marks_drop(i); /* unpatched whole: nothing pinned or culled is left */
    if (xr_patched_functions(o) > 0 &&
        xr_patch_object_functions(o, 1, (int32_t)o->map->function_count, NULL, XR_SLEDS_ALL,
                                  false) != SUCCESS)
      xr_report(XR_ERROR, "object %d ('%s') could not be unpatched: its events reach the "
                "dense mode with ids no map names", o->id, o->path);
  }
  xr_objects_unlock();
}

/* Fork child (see the top of this file). */
static void after_fork(void) {
  if (!patching_here)
    __atomic_store_n(&patching_busy, 0, __ATOMIC_RELAXED);
}

const struct xr_object_events xr_patch_api_events = {.registered = registered,
                                                     .after_fork = after_fork,
                                                     .going = going,
                                                     .dense_changed = dense_changed};
