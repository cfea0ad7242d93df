/* The budget's per-object function table. See budget_table.h. Cold path:
 * the budget's thread and the sidecar writer only. */
#include "budget/budget_table.h"

#include "core/base/report.h"
#include "core/names/names.h"
#include "core/objects/objects.h"

#include <stdlib.h>
#include <string.h>

struct xr_budget_slice xr_budget_slices[XR_MAX_OBJECTS];
xr_lock xr_budget_table_lock;

static void empty(struct xr_budget_slice *s) {
  free(s->fns);
  free(s->notes);
  free(s->states);
  free(s->select);
  memset(s, 0, sizeof *s);
}

static bool fill(struct xr_budget_slice *s, uint32_t generation, size_t count) {
  s->fns = calloc(count, sizeof *s->fns);
  s->notes = calloc(count, sizeof *s->notes);
  s->states = calloc(count, 1);
  s->select = calloc(count, 1);
  if (s->fns == NULL || s->notes == NULL || s->states == NULL || s->select == NULL) {
    empty(s);
    return false;
  }
  for (size_t i = 0; i < count; i++) {
    s->fns[i].key = (uint32_t)i;
    s->fns[i].mean_ns = -1;
    s->notes[i].state = XR_BUDGET_UNPATCHED;
  }
  s->generation = generation;
  s->count = count;
  return true;
}

bool xr_budget_table_sync(void) {
  bool changed = false;
  size_t objects = xr_objects_count();
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    struct xr_object_info info;
    bool here = id < objects && xr_object_info((int32_t)id, &info) && info.loaded &&
                info.function_count > 0;
    if (here && s->generation == info.generation && s->count == info.function_count)
      continue;
    if (s->generation != 0) {
      empty(s);
      changed = true;
    }
    if (!here)
      continue;
    if (!fill(s, info.generation, info.function_count)) {
      static int said;
      xr_report_once(&said, XR_ERROR, "budget: no memory for the functions of "
                     "object %zu; the budget leaves them as they are", id);
      continue;
    }
    changed = true;
  }
  return changed;
}

void xr_budget_table_keep(const char *patterns, uint64_t version) {
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    if (s->generation == 0 || s->keep_version == version)
      continue;
    memset(s->select, 0, s->count);
    const struct xr_name_table *t;
    if (patterns[0] != '\0') {
      if (xr_names_table((int)id, &t) != XR_NAMES_OK)
        continue; /* tried again at the next evaluation */
      if (t->count == s->count)
        xr_names_mark(t, patterns, s->select, 1, NULL);
    }
    for (size_t i = 0; i < s->count; i++)
      s->notes[i].keep = s->select[i] != 0;
    s->keep_version = version;
  }
}

void xr_budget_table_forget(void) {
  /* The arrays may be half written: dropped, not freed (a fork child, once). */
  memset(xr_budget_slices, 0, sizeof xr_budget_slices);
  xr_lock_after_fork(&xr_budget_table_lock);
}
