/* Dense ids for LLVM 20's shared objects. Their trampolines (compiler-rt's
 * xray-dso) call the handler in the exported _ZN6__xray19XRayPatchedFunctionE
 * with a packed id; when the mode's handler takes dense ids (FDR), handlers.c
 * stores these wrappers there instead, which add the object's id base. Our
 * own objects never come here: their dense paths add a per-object offset
 * (lib/arch/<cpu>/dso_trampolines_<cpu>.S). A lean translation unit
 * (core/base/lean.h): it runs where the handler would, on a path that saved no
 * vector register beyond the argument ones (x86-64: xmm0-7). Cost: a table
 * load and a compare per event of such an object. An object without an id base is dropped: no record
 * may name the wrong function. */
#include "core/base/lean.h"
#include "core/dispatch/dense_ids_lean.h"
#include "core/dispatch/function_ids.h"
#include "core/dispatch/hot_tables.h"

void xr_dense_wrap_arg0(int32_t packed, int type) {
  void (*h)(int32_t, int) =
      (void (*)(int32_t, int))__atomic_load_n(&xr_dense_handlers_no_sp[0], __ATOMIC_ACQUIRE);
  int32_t id = xr_dense_id(packed);
  if (h != NULL && id >= 0)
    h(id, type);
}

void xr_dense_wrap_arg1(int32_t packed, int type, uint64_t arg) {
  void (*h)(int32_t, int, uint64_t) =
      (void (*)(int32_t, int, uint64_t))__atomic_load_n(&xr_dense_handlers_no_sp[1], __ATOMIC_ACQUIRE);
  int32_t id = xr_dense_id(packed);
  if (h != NULL && id >= 0)
    h(id, type, arg);
}
