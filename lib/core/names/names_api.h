/* The names' public API (names_api.c: include/xray/xray_names.h and
 * __xray_symbolize), and the walk over every object's table it shares with
 * the patcher. */
#ifndef XR_NAMES_API_H
#define XR_NAMES_API_H

#include "core/base/common.h"
#include "core/names/names.h"

/* Calls fn for every object's table (the executable first), stopping at a
 * non-zero return, which it returns; objects whose table cannot be read are
 * skipped. A negative status when the executable's cannot. */
XR_HIDDEN int xr_names_each_table(int (*fn)(int32_t object, const struct xr_name_table *t,
                                             void *ctx),
                                  void *ctx);

#endif
