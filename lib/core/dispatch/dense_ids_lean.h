/* The wrappers that give LLVM 20 objects' events dense ids
 * (dense_ids_lean.c): handlers.c installs them in such an object's handler
 * copy while a dense handler (FDR's) is installed. */
#ifndef XR_DENSE_IDS_LEAN_H
#define XR_DENSE_IDS_LEAN_H

#include "core/base/common.h"

XR_HIDDEN void xr_dense_wrap_arg0(int32_t packed, int type);
XR_HIDDEN void xr_dense_wrap_arg1(int32_t packed, int type, uint64_t arg);

#endif
