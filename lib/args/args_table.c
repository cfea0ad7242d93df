/* The SPEC's tables (args_table.h). Cold path, but for xr_args_plan_of
 * (inline in the header). Memory from mmap: a table, or a slice, is one
 * mapping. */
#include "args/args_table.h"

#include "args/args_readers.h"
#include "core/base/report.h"
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/patch/patch_api.h"
#include "core/thread/lock.h"
#include "xray/xray_interface.h"

#include <string.h>
#include <sys/mman.h>

struct xr_args_table *xr_args_current;

static void *map_zeroed(size_t bytes) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

struct xr_args_table *xr_args_table_new(const struct xr_args_spec *spec) {
  struct xr_args_table *t = map_zeroed(sizeof *t);
  if (t == NULL) {
    xr_report(XR_ERROR, "xray_args: no memory for the SPEC's table; no value is captured");
    return NULL;
  }
  t->spec = *spec;
  return t;
}

/* ---- one object's slice ---------------------------------------------------- */

/* The plan of the functions the patterns of `mask` match: their values
 * merged in SPEC order, each value once. */
static void merge(const struct xr_args_spec *spec, uint64_t mask, struct xr_args_plan *out) {
  uint64_t seen[4] = {0, 0, 0, 0}; /* by `what` */
  memset(out, 0, sizeof *out);
  for (size_t k = 0; k < spec->patterns; k++) {
    if (!(mask >> k & 1))
      continue;
    const struct xr_args_pattern *p = &spec->p[k];
    for (uint8_t i = 0; i < p->count; i++) {
      struct xr_args_value_spec v = p->v[i];
      if (seen[v.what >> 6] >> (v.what & 63) & 1)
        continue;
      seen[v.what >> 6] |= (uint64_t)1 << (v.what & 63);
      if (XR_ARG_WHAT_KIND(v.what) == XR_ARG_KIND_RET) {
        out->has_ret = true;
        out->ret = v;
      } else {
        /* Distinct argN and fpargN: at most XR_ARGS_MAX (args_spec.c). */
        out->entry[out->entries++] = v;
        out->strings += v.format == XR_ARGF_S;
      }
    }
  }
}

/* Distinct masks, numbered from 1 as they come: an open-addressing set. */
struct mask_set {
  uint64_t *mask;
  uint32_t *number;
  size_t cap; /* a power of two, more than twice the masks it holds */
  uint32_t count;
};

static uint32_t mask_number(struct mask_set *s, uint64_t mask) {
  size_t i = (size_t)((mask * 0x9E3779B97F4A7C15u) >> 17) & (s->cap - 1);
  while (s->number[i] != 0 && s->mask[i] != mask)
    i = (i + 1) & (s->cap - 1);
  if (s->number[i] == 0) {
    s->mask[i] = mask;
    s->number[i] = ++s->count;
  }
  return s->number[i];
}

/* Object o's name table (registry lock held: a shared object's names come
 * from o itself, as the option selection's do). */
static int names_of(const struct xr_object *o, const struct xr_name_table **t) {
  if (o->id != 0) {
    int status = xr_names_add_object(o->id, o->map, o->path, o->base);
    if (status != XR_NAMES_OK)
      return status;
  }
  return xr_names_table(o->id, t);
}

/* Scratch of a build: per function its mask, then its plan's number; the
 * selection of one pattern; the mask set. */
struct scratch {
  uint64_t *masks;
  uint8_t *selected;
  struct mask_set set;
  size_t bytes;
};

static bool scratch_map(struct scratch *w, size_t count) {
  size_t cap = 16;
  while (cap < 2 * count + 2)
    cap *= 2;
  w->bytes = count * 8 + count + cap * 12 + 64;
  char *m = map_zeroed(w->bytes);
  if (m == NULL)
    return false;
  w->masks = (uint64_t *)m;
  w->set.mask = (uint64_t *)(m + count * 8);
  w->set.number = (uint32_t *)(m + count * 8 + cap * 8);
  w->selected = (uint8_t *)(m + count * 8 + cap * 12);
  w->set.cap = cap;
  w->set.count = 0;
  return true;
}

/* Whether function id's entry is a log-args sled. */
static bool log_args_entry(const struct xr_sled_map *map, size_t id) {
  const struct xr_function *f = &map->functions[id - 1];
  for (uint32_t k = 0; k < f->sled_count; k++)
    if (map->sleds[f->first_sled + k].kind == LOG_ARGS_ENTRY)
      return true;
  return false;
}

static struct xr_args_slice *build(const struct xr_args_spec *spec, const struct xr_object *o) {
  const struct xr_name_table *t = NULL;
  int status = spec->patterns > 0 ? names_of(o, &t) : XR_NAMES_OK;
  if (status != XR_NAMES_OK) {
    xr_report(XR_ERROR, "xray_args: no names for object %d ('%s', status %d): no value of "
              "its functions is captured", o->id, o->path, status);
    return NULL;
  }
  size_t count = o->map->function_count;
  if (t != NULL && t->count < count)
    count = t->count;
  struct scratch w;
  if (!scratch_map(&w, count))
    goto no_memory;
  uint32_t hits[XR_ARGS_PATTERNS_MAX];
  for (size_t k = 0; k < spec->patterns; k++) {
    memset(w.selected, 0, count);
    hits[k] = (uint32_t)xr_names_mark(t, spec->text + spec->p[k].at, w.selected, 1, NULL);
    for (size_t i = 0; i < count; i++)
      w.masks[i] |= (uint64_t)w.selected[i] << k;
  }
  uint32_t planned = 0;
  for (size_t i = 0; i < count; i++)
    if (w.masks[i] != 0) {
      w.masks[i] = mask_number(&w.set, w.masks[i]); /* the mask's plan, from 1 */
      planned++;
    }
  size_t plans_at = (sizeof(struct xr_args_slice) + 4 * XR_ARGS_PATTERNS_MAX + 7) & ~(size_t)7;
  size_t plan_of_at = (plans_at + w.set.count * sizeof(struct xr_args_plan) + 7) & ~(size_t)7;
  size_t bytes = plan_of_at + 4 * count;
  char *m = map_zeroed(bytes);
  if (m == NULL) {
    munmap(w.masks, w.bytes);
    goto no_memory;
  }
  struct xr_args_slice *s = (struct xr_args_slice *)m;
  uint32_t *hits_out = (uint32_t *)(m + sizeof *s);
  struct xr_args_plan *plan = (struct xr_args_plan *)(m + plans_at);
  uint32_t *plan_of = (uint32_t *)(m + plan_of_at);
  memcpy(hits_out, hits, 4 * spec->patterns);
  for (size_t i = 0; i < w.set.cap; i++)
    if (w.set.number[i] != 0)
      merge(spec, w.set.mask[i], &plan[w.set.number[i] - 1]);
  for (size_t i = 0; i < count; i++)
    plan_of[i] = (uint32_t)w.masks[i] | (log_args_entry(o->map, i + 1) ? XR_ARGS_LOG_ARGS_SLED : 0);
  munmap(w.masks, w.bytes);
  *s = (struct xr_args_slice){bytes, o->generation, (uint32_t)count, planned, plan_of, plan,
                              hits_out, NULL};
  return s;
no_memory:
  xr_report(XR_ERROR, "xray_args: no memory for the plans of object %d ('%s'): no value of "
            "its functions is captured", o->id, o->path);
  return NULL;
}

void xr_args_slice_want(const struct xr_args_slice *s, uint8_t *want, size_t count) {
  memset(want, 0, count);
  if (s == NULL)
    return;
  for (size_t i = 0; i < count && i < s->count; i++) {
    uint32_t k = s->plan_of[i] & ~XR_ARGS_LOG_ARGS_SLED;
    if (k == 0)
      continue;
    const struct xr_args_plan *p = &s->plan[k - 1];
    want[i] = (uint8_t)((p->entries ? XR_ARGS_AT_ENTRY : 0) | (p->has_ret ? XR_ARGS_AT_EXIT : 0));
  }
}

/* ---- retired tables and slices ------------------------------------------- */

/* A retired table keeps its slices; it is chained through a small record
 * of its own, so the table's layout stays what the hook reads. */
struct retired_table {
  struct xr_args_table *table;
  struct retired_table *next;
};
static struct retired_table *retired_tables;
static struct {
  xr_lock lock; /* over both lists */
  struct xr_args_slice *slices;
  size_t slice_count;
} retired;

static void push_slice(struct xr_args_slice *s) {
  xr_lock_take(&retired.lock);
  s->next_retired = retired.slices;
  retired.slices = s;
  retired.slice_count++;
  xr_lock_release(&retired.lock);
}

/* Slot id of t gets s; the slice it held is retired. */
static void replace_slice(struct xr_args_table *t, int32_t id, struct xr_args_slice *s) {
  struct xr_args_slice *old = t->slices[id];
  __atomic_store_n(&t->slices[id], s, __ATOMIC_RELEASE);
  if (old != NULL)
    push_slice(old);
}

void xr_args_table_fill(struct xr_args_table *t, const struct xr_object *o, uint8_t *want,
                        size_t count) {
  /* The slices of objects gone since (dlclose) go first: no sled of theirs
   * can call the hook any more. */
  for (int32_t id = 0; id < XR_MAX_OBJECTS; id++) {
    const struct xr_object *other = xr_object_get(id);
    if (t->slices[id] != NULL && id != o->id &&
        (other == NULL || !other->loaded || other->generation != t->slices[id]->generation))
      replace_slice(t, id, NULL);
  }
  replace_slice(t, o->id, o->map->function_count > 0 ? build(&t->spec, o) : NULL);
  /* An object loaded and unloaded again and again must not pile them up: a
   * few are freed here, under the registry lock, which no reader takes. */
  if (__atomic_load_n(&retired.slice_count, __ATOMIC_RELAXED) > 16)
    xr_args_retired_free();
  if (want != NULL)
    xr_args_slice_want(t->slices[o->id], want, count);
}

void xr_args_table_retire(struct xr_args_table *t) {
  if (t == NULL)
    return;
  struct retired_table *r = map_zeroed(sizeof *r);
  xr_lock_take(&retired.lock);
  if (r != NULL) {
    r->table = t;
    r->next = retired_tables;
    retired_tables = r;
  } /* else: kept for ever, a few KB, rather than freed too early */
  xr_lock_release(&retired.lock);
}

static void free_table(struct xr_args_table *t) {
  for (size_t i = 0; i < XR_MAX_OBJECTS; i++)
    if (t->slices[i] != NULL)
      munmap(t->slices[i], t->slices[i]->bytes);
  munmap(t, sizeof *t);
}

void xr_args_retired_free(void) {
  xr_lock_take(&retired.lock);
  struct retired_table *tables = retired_tables;
  struct xr_args_slice *slices = retired.slices;
  retired_tables = NULL;
  retired.slices = NULL;
  retired.slice_count = 0;
  xr_lock_release(&retired.lock);
  if (tables == NULL && slices == NULL)
    return;
  if (!xr_args_readers_quiesce()) {
    /* A thread is still inside (stopped, or preempted for long): back on
     * the lists, for the next change. */
    while (tables != NULL) {
      struct retired_table *next = tables->next;
      xr_lock_take(&retired.lock);
      tables->next = retired_tables;
      retired_tables = tables;
      xr_lock_release(&retired.lock);
      tables = next;
    }
    while (slices != NULL) {
      struct xr_args_slice *next = slices->next_retired;
      push_slice(slices);
      slices = next;
    }
    return;
  }
  while (tables != NULL) {
    struct retired_table *next = tables->next;
    free_table(tables->table);
    munmap(tables, sizeof *tables);
    tables = next;
  }
  while (slices != NULL) {
    struct xr_args_slice *next = slices->next_retired;
    munmap(slices, slices->bytes);
    slices = next;
  }
}

void xr_args_table_after_fork(void) {
  xr_lock_after_fork(&retired.lock);
  retired_tables = NULL;
  retired.slices = NULL;
  retired.slice_count = 0;
}
