/* The API of include/xray/xray_names.h and __xray_symbolize: thin doors on
 * the name tables (names.c, one per object); patching by name is
 * patch_api.c's. Ids are packed (object << 24 | function; the executable's are
 * plain). Cold path, except __xray_function_name and __xray_symbolize, which
 * only read an immutable table once it is loaded (async-signal-safe then). */
#include "core/names/names_api.h"

#include "core/base/runtime_state.h"
#include "core/match/glob.h"
#include "core/match/spelling.h"
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "xray/xray_interface.h"
#include "xray/xray_names.h"

#include <string.h>
#include <sys/mman.h>

_Static_assert((int)XRAY_NAMES_NOT_INITIALIZED == (int)XR_NAMES_NO_MAP &&
                   (int)XRAY_NAMES_BUSY == (int)XR_NAMES_BUSY &&
                   (int)XRAY_NAMES_INVALID == (int)XR_NAMES_INVALID &&
                   (int)XRAY_NAMES_FAILED == (int)XR_NAMES_FAILED &&
                   (int)XRAY_NAMES_NO_MEMORY == (int)XR_NAMES_NO_MEMORY,
               "public and internal statuses are the same numbers");

/* The table of the object holding packed id `id` (its function id goes to
 * *fn), or a negative status. */
static int table_of(int32_t id, const struct xr_name_table **t, int32_t *fn) {
  if (!xr_runtime_initialized())
    return XRAY_NAMES_NOT_INITIALIZED;
  int status = xr_names_table(xr_id_object(id), t);
  if (status != XR_NAMES_OK)
    return status;
  *fn = xr_id_function(id);
  if (*fn < 1 || (size_t)*fn > (*t)->count)
    return XRAY_NAMES_INVALID;
  return XR_NAMES_OK;
}

int xr_names_each_table(int (*fn)(int32_t object, const struct xr_name_table *t, void *ctx),
                        void *ctx) {
  const struct xr_name_table *t;
  int status = xr_runtime_initialized() ? xr_names_table(0, &t) : XRAY_NAMES_NOT_INITIALIZED;
  if (status != XR_NAMES_OK)
    return status;
  size_t objects = xr_objects_count();
  for (size_t o = 0; o < objects || o == 0; o++) {
    if (o > 0 && xr_names_table((int)o, &t) != XR_NAMES_OK)
      continue;
    int r = fn((int32_t)o, t, ctx);
    if (r != 0)
      return r;
  }
  return 0;
}

static int loaded(int32_t object, const struct xr_name_table *t, void *ctx) {
  (void)object, (void)t, (void)ctx;
  return 0;
}

/* Reads the tables of the executable and of every object registered so far
 * (each_table loads each). */
XR_API int __xray_load_names(void) { return xr_names_each_table(loaded, NULL); }

struct ids_ctx {
  const char *name, *canonical; /* as given, and in the canonical spelling */
  int32_t *ids;
  size_t capacity, found;
};

static int find_name(int32_t object, const struct xr_name_table *t, void *arg) {
  struct ids_ctx *c = arg;
  for (size_t i = 0; i < t->count && c->found < INT32_MAX; i++) {
    const struct xr_name_entry *e = &t->entries[i];
    const char *canonical = e->canonical != NULL ? e->canonical : e->name;
    if (strcmp(e->name, c->name) != 0 && strcmp(canonical, c->canonical) != 0 &&
        (e->symbol == NULL || strcmp(e->symbol, c->name) != 0))
      continue;
    if (c->found < c->capacity)
      c->ids[c->found] = xr_pack_id((int32_t)i + 1, object);
    c->found++;
  }
  return 0;
}

XR_API int __xray_function_ids(const char *name, int32_t *ids, size_t capacity) {
  if (!xr_runtime_initialized())
    return XRAY_NAMES_NOT_INITIALIZED;
  if (name == NULL || (ids == NULL && capacity > 0))
    return XRAY_NAMES_INVALID;
  /* Either demangler's spelling of the name finds the function. */
  size_t len = strlen(name);
  char *canonical = mmap(NULL, len + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
  if (canonical == MAP_FAILED)
    return XRAY_NAMES_NO_MEMORY;
  xr_spelling_canonical(name, len, canonical);
  struct ids_ctx c = {name, canonical, ids, capacity, 0};
  int status = xr_names_each_table(find_name, &c);
  munmap(canonical, len + 1);
  if (status < 0)
    return status;
  return c.found == 0 ? XRAY_NAMES_INVALID : (int)c.found;
}

XR_API int __xray_function_name(int32_t id, char *buf, size_t size) {
  const struct xr_name_table *t;
  int32_t fn;
  int status = table_of(id, &t, &fn);
  if (status != XR_NAMES_OK)
    return status;
  if (buf == NULL && size > 0)
    return XRAY_NAMES_INVALID;
  const char *name = t->entries[fn - 1].name;
  size_t len = strlen(name);
  if (size > 0) {
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
  }
  return len > INT32_MAX ? INT32_MAX : (int)len;
}

struct visit_ctx {
  XRayFunctionVisitor visit;
  void *context;
};

static int visit_table(int32_t object, const struct xr_name_table *t, void *arg) {
  struct visit_ctx *c = arg;
  for (size_t i = 0; i < t->count; i++) {
    const struct xr_name_entry *e = &t->entries[i];
    int r = c->visit(c->context, xr_pack_id((int32_t)i + 1, object), e->name, e->symbol,
                     e->address);
    if (r != 0)
      return r;
  }
  return 0;
}

XR_API int __xray_for_each_function(XRayFunctionVisitor visit, void *context) {
  if (!xr_runtime_initialized())
    return XRAY_NAMES_NOT_INITIALIZED;
  if (visit == NULL)
    return XRAY_NAMES_INVALID;
  struct visit_ctx c = {visit, context};
  return xr_names_each_table(visit_table, &c);
}

XR_API int __xray_symbolize(int32_t FuncId, XRaySymbolInfo *info) {
  const struct xr_name_table *t;
  int32_t fn;
  if (info == NULL || table_of(FuncId, &t, &fn) != XR_NAMES_OK)
    return 0;
  const struct xr_name_entry *e = &t->entries[fn - 1];
  info->function_id = FuncId;
  info->function = e->name;
  info->symbol = e->symbol;
  info->object = t->object_path;
  info->address = e->address;
  return 1;
}
