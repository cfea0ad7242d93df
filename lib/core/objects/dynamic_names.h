/* The names in a loaded module's dynamic string table: how the registry
 * learns which runtime calls a shared object's libxray-dso.a can make (each
 * is a weak dynamic reference there, so its name is in that table). */
#ifndef XR_DYNAMIC_NAMES_H
#define XR_DYNAMIC_NAMES_H

#include "core/base/common.h"

struct dl_phdr_info;

/* Which of names[0 .. count) (count <= 32) the module's dynamic string
 * table holds as whole strings, as dl_iterate_phdr describes the module:
 * bit i for names[i], from one pass over the table (cold path). 0 when the
 * module has no dynamic section. */
XR_HIDDEN uint32_t xr_module_dynamic_names(const struct dl_phdr_info *info,
                                           const char *const *names,
                                           unsigned count);

#endif
