/* Changing the SPEC (args_set.h).
 *
 * Order of a change, each step for a reason:
 *   1. parse: a bad SPEC changes nothing;
 *   2. under the registry lock (which registration holds while it asks for
 *      a new object's plans, and patching while it writes sleds): build
 *      the new table's slice of every loaded object, publish the table
 *      with one store, and note what each object's sleds must call now;
 *      so an object that registers meanwhile gets its plans from the new
 *      table, never from the old one after the change;
 *   3. retarget the sleds (the patching door): a sled that goes to the
 *      argument trampolines finds its plan already published; one that
 *      leaves them finds none and passes its event on as before;
 *   4. retire the old table, freed once no thread reads it
 *      (args_readers.h).
 * Changes are serialised by set_lock; the hook never takes it. */
#include "args/args_set.h"

#include "args/args_hook.h"
#include "args/args_readers.h"
#include "args/args_spec.h"
#include "args/args_table.h"
#include "core/base/report.h"
#include "core/base/runtime_state.h"
#include "core/objects/objects.h"
#include "core/patch/patch_api.h"
#include "core/thread/lock.h"
#include "core/thread/thread.h"
#include "xray/xray_args.h"
#include "xray/xray_interface.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static xr_lock set_lock;
static bool installed;

/* The patching door's provider: an object registers (registry lock held),
 * before its first patching. */
static void fill_registering(const struct xr_object *o, uint8_t *want, size_t count) {
  struct xr_args_table *t = __atomic_load_n(&xr_args_current, __ATOMIC_RELAXED);
  if (t != NULL && t->spec.patterns > 0) /* none: its sleds stay as they are */
    xr_args_table_fill(t, o, want, count);
}

/* Fork child: a change another thread was making stops with it; the SPEC
 * published before the fork stays in effect. */
static void set_after_fork(void) {
  xr_lock_after_fork(&set_lock);
  xr_args_table_after_fork();
}

static int say(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *err, size_t cap, const char *fmt, ...) {
  if (cap > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return XRAY_ARGS_FAILED;
}

/* The hook, the readers' hooks and the provider, once. */
static bool install(void) {
  if (installed)
    return true;
  if (!xr_args_readers_setup() || xr_thread_on_fork_child(set_after_fork) != 0)
    return false;
  xr_args_hook_install();
  xr_patch_args_provider(fill_registering);
  installed = true;
  return true;
}

/* What an object's sleds must call after the change. */
struct job {
  int32_t id;
  uint32_t generation;
  size_t count;
  uint8_t *want;
};
static struct job jobs[XR_MAX_OBJECTS]; /* under set_lock */

static bool has_plans(const struct xr_args_table *t, int32_t id) {
  return t != NULL && t->slices[id] != NULL && t->slices[id]->planned > 0;
}

/* Step 2 (registry lock held): t's slices (with no pattern, only for the
 * objects that had plans: args_table.h), and the jobs of the objects whose
 * sleds had or get a plan. Returns the number of jobs. */
static size_t build_locked(struct xr_args_table *t, const struct xr_args_table *old) {
  size_t n = 0;
  for (int32_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_object *o = xr_object_get(id);
    if (o == NULL || !o->loaded || o->map->function_count == 0)
      continue;
    if (t != NULL && (t->spec.patterns > 0 || has_plans(old, id)))
      xr_args_table_fill(t, o, NULL, 0);
    if (!has_plans(t, id) && !has_plans(old, id))
      continue;
    size_t count = o->map->function_count;
    uint8_t *want = malloc(count);
    if (want == NULL) {
      xr_report(XR_ERROR, "xray_args: no memory to retarget object %d ('%s')", id, o->path);
      continue;
    }
    xr_args_slice_want(t != NULL ? t->slices[id] : NULL, want, count);
    jobs[n++] = (struct job){id, o->generation, count, want};
  }
  return n;
}

/* xr_patch_set_args, tried again while another thread patches (1 s at
 * most: 200 tries 5 ms apart, as control's patching by name). */
static int set_args_retrying(const struct job *j) {
  for (int tries = 0;; tries++) {
    int s = xr_patch_set_args(j->id, j->want, j->count);
    if (s != ONGOING || tries == 200)
      return s;
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
}

/* Step 3: every job; the first failure into err. */
static int retarget(size_t n, char *err, size_t cap) {
  int status = XRAY_ARGS_OK;
  for (size_t i = 0; i < n; i++) {
    struct job *j = &jobs[i];
    struct xr_object_info info;
    /* Gone, or another object took its id since: that one got its want
     * from the new table when it registered. */
    bool same = xr_object_info(j->id, &info) && info.loaded && info.generation == j->generation;
    int s = same ? set_args_retrying(j) : SUCCESS;
    if (s != SUCCESS && status == XRAY_ARGS_OK)
      status = say(err, cap, "the sleds of object %d ('%s') could not be retargeted (%s): "
                   "the SPEC is in effect, but values of its functions are missing; try "
                   "again", j->id, info.path,
                   s == ONGOING ? "another thread kept patching for a second"
                                : "patching failed; the program's stderr says why");
    free(j->want);
  }
  return status;
}

/* The table of "none", once a SPEC was in effect. */
static const struct xr_args_spec no_spec;

static int apply(const struct xr_args_spec *spec, char *err, size_t cap) {
  if (spec != NULL && !install())
    return say(err, cap, "no thread-exit or fork hook left for argument capture; no value "
               "is captured");
  struct xr_args_table *old = xr_args_current; /* changed only under set_lock */
  struct xr_args_table *t = NULL;
  if ((spec != NULL || old != NULL) &&
      (t = xr_args_table_new(spec != NULL ? spec : &no_spec)) == NULL)
    return say(err, cap, "no memory for the SPEC's table; the SPEC in effect stays");
  xr_objects_lock();
  size_t n = build_locked(t, old);
  __atomic_store_n(&xr_args_current, t, __ATOMIC_SEQ_CST);
  xr_objects_unlock();
  int status = retarget(n, err, cap);
  xr_args_table_retire(old);
  xr_args_retired_free();
  return status;
}

int xr_args_set(const char *text, char *err, size_t cap) {
  struct xr_args_spec spec;
  if (cap > 0)
    err[0] = '\0';
  if (xr_args_spec_parse(text, &xr_args_this_port, &spec, err, cap) != 0)
    return XRAY_ARGS_INVALID;
  if (!xr_runtime_initialized()) {
    say(err, cap, "the program has no XRay instrumentation map");
    return XRAY_ARGS_NOT_INITIALIZED;
  }
  uint8_t was = xr_guard_enter(); /* this thread's events wait meanwhile */
  xr_lock_take(&set_lock);
  int status = apply(spec.patterns > 0 ? &spec : NULL, err, cap);
  xr_lock_release(&set_lock);
  xr_guard_leave(was);
  return status;
}

size_t xr_args_get(char *buf, size_t cap) {
  uint8_t was = xr_guard_enter();
  xr_lock_take(&set_lock);
  const struct xr_args_table *t = xr_args_current;
  size_t n;
  if (t != NULL) {
    n = xr_args_spec_print(&t->spec, buf, cap);
  } else {
    n = 0;
    if (cap > 0)
      buf[0] = '\0';
  }
  xr_lock_release(&set_lock);
  xr_guard_leave(was);
  return n;
}

size_t xr_args_each_pattern(void (*each)(void *ctx, const char *text, size_t matched),
                            void *ctx) {
  uint8_t was = xr_guard_enter();
  xr_lock_take(&set_lock);
  const struct xr_args_table *t = xr_args_current;
  size_t patterns = t != NULL ? t->spec.patterns : 0;
  size_t matched[XR_ARGS_PATTERNS_MAX] = {0};
  xr_objects_lock(); /* slices are replaced under it */
  for (int32_t id = 0; t != NULL && id < XR_MAX_OBJECTS; id++) {
    const struct xr_object *o = xr_object_get(id);
    const struct xr_args_slice *s = t->slices[id];
    if (o == NULL || !o->loaded || s == NULL || s->generation != o->generation)
      continue;
    for (size_t k = 0; k < patterns; k++)
      matched[k] += s->hits[k];
  }
  xr_objects_unlock();
  for (size_t k = 0; k < patterns; k++) {
    char text[XR_ARGS_PRINT_MAX];
    xr_args_pattern_print(&t->spec, k, text, sizeof text);
    each(ctx, text, matched[k]);
  }
  xr_lock_release(&set_lock);
  xr_guard_leave(was);
  return patterns;
}
