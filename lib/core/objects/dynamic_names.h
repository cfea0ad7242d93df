/* The names in a loaded module's dynamic string table: how the registry
 * learns which runtime calls a shared object's libxray-dso.a can make (each
 * is a weak dynamic reference there, so its name is in that table). */
#ifndef XR_DYNAMIC_NAMES_H
#define XR_DYNAMIC_NAMES_H

#include "core/base/common.h"

struct dl_phdr_info;

/* True when the module's dynamic string table holds `name` as a whole
 * string (as dl_iterate_phdr describes the module; cold path). False when
 * the module has no dynamic section. */
XR_HIDDEN bool xr_module_has_dynamic_name(const struct dl_phdr_info *info,
                                          const char *name);

#endif
