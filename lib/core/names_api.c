/* The API of include/xray/xray_names.h and __xray_symbolize: thin doors on
 * the name table (names.c) and the patching room (patching.c). Cold path,
 * except __xray_function_name and __xray_symbolize, which only read the
 * immutable table once it is loaded (async-signal-safe then). */
#include "names.h"
#include "glob.h"
#include "patching.h"
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

static int executable_table(const struct xr_name_table **t) {
  if (!xr_runtime_initialized())
    return XRAY_NAMES_NOT_INITIALIZED;
  return xr_names_table(0, t);
}

XR_API int __xray_load_names(void) {
  const struct xr_name_table *t;
  return executable_table(&t);
}

static int patch_matching(const char *patterns, bool enable) {
  const struct xr_name_table *t;
  int status = executable_table(&t);
  if (status != XR_NAMES_OK)
    return status;
  if (patterns == NULL || xr_pattern_count(patterns) == 0)
    return XRAY_NAMES_INVALID;
  uint8_t *selected = mmap(NULL, t->count + 1, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (selected == MAP_FAILED)
    return XRAY_NAMES_NO_MEMORY;
  size_t n = xr_names_mark(t, patterns, selected, 1, NULL);
  switch (n == 0 ? SUCCESS : xr_patch_selected(selected, enable)) {
  case SUCCESS:
    status = n > INT32_MAX ? INT32_MAX : (int)n;
    break;
  case ONGOING:
    status = XRAY_NAMES_BUSY;
    break;
  case NOT_INITIALIZED:
    status = XRAY_NAMES_NOT_INITIALIZED;
    break;
  default:
    status = XRAY_NAMES_FAILED;
    break;
  }
  munmap(selected, t->count + 1);
  return status;
}

XR_API int __xray_patch_matching(const char *patterns) {
  return patch_matching(patterns, true);
}

XR_API int __xray_unpatch_matching(const char *patterns) {
  return patch_matching(patterns, false);
}

XR_API int __xray_function_ids(const char *name, int32_t *ids, size_t capacity) {
  const struct xr_name_table *t;
  int status = executable_table(&t);
  if (status != XR_NAMES_OK)
    return status;
  if (name == NULL || (ids == NULL && capacity > 0))
    return XRAY_NAMES_INVALID;
  size_t found = 0;
  for (size_t i = 0; i < t->count && found < INT32_MAX; i++) {
    const struct xr_name_entry *e = &t->entries[i];
    if (strcmp(e->name, name) != 0 &&
        (e->symbol == NULL || strcmp(e->symbol, name) != 0))
      continue;
    if (found < capacity)
      ids[found] = (int32_t)i + 1;
    found++;
  }
  return found == 0 ? XRAY_NAMES_INVALID : (int)found;
}

XR_API int __xray_function_name(int32_t id, char *buf, size_t size) {
  const struct xr_name_table *t;
  int status = executable_table(&t);
  if (status != XR_NAMES_OK)
    return status;
  if (id < 1 || (size_t)id > t->count || (buf == NULL && size > 0))
    return XRAY_NAMES_INVALID;
  const char *name = t->entries[id - 1].name;
  size_t len = strlen(name);
  if (size > 0) {
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
  }
  return len > INT32_MAX ? INT32_MAX : (int)len;
}

XR_API int __xray_for_each_function(XRayFunctionVisitor visit, void *context) {
  const struct xr_name_table *t;
  int status = executable_table(&t);
  if (status != XR_NAMES_OK)
    return status;
  if (visit == NULL)
    return XRAY_NAMES_INVALID;
  for (size_t i = 0; i < t->count; i++) {
    const struct xr_name_entry *e = &t->entries[i];
    int r = visit(context, (int32_t)i + 1, e->name, e->symbol, e->address);
    if (r != 0)
      return r;
  }
  return 0;
}

XR_API int __xray_symbolize(int32_t FuncId, XRaySymbolInfo *info) {
  const struct xr_name_table *t;
  if (info == NULL || executable_table(&t) != XR_NAMES_OK || FuncId < 1 ||
      (size_t)FuncId > t->count)
    return 0;
  const struct xr_name_entry *e = &t->entries[FuncId - 1];
  info->function_id = FuncId;
  info->function = e->name;
  info->symbol = e->symbol;
  info->object = t->object_path;
  info->address = e->address;
  return 1;
}
