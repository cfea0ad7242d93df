/* Prints the binary interface between libxray-dso.a and the runtime as this
 * tree compiles it (lib/core/dispatch/dso_abi.h), for dso.abi to compare with
 * abi.golden: a shared object built with an older libxray-dso.a keeps
 * calling these names with these types and layouts, so none may change
 * (docs/core.md, "The shared-object ABI"). A declaration that no longer
 * matches the type written here stops the build with its name. */
#define _GNU_SOURCE /* PATH_MAX, for objects.h */
#include "core/dispatch/dso_abi.h"
#include "core/objects/objects.h"
#include "xray/xray_interface.h"

#include <stdio.h>

/* `type` as written here must be the declared type of `fn`. */
#define FUNCTION(fn, type)                                                                   \
  do {                                                                                       \
    _Static_assert(__builtin_types_compatible_p(__typeof__(fn), type),                       \
                   #fn " is no longer declared " #type ": abi.golden");                      \
    puts("function " #fn " " #type);                                                         \
  } while (0)
#define MEMBER(s, m)                                                                         \
  printf("member %s.%s offset %zu size %zu\n", #s, #m, offsetof(struct s, m),                \
         sizeof(((struct s *)0)->m))
#define SIZE(s) printf("struct %s size %zu align %zu\n", #s, sizeof(struct s), _Alignof(struct s))
#define NUMBER(n) printf("number %s %lld\n", #n, (long long)(n))

int main(void) {
  NUMBER(XR_DSO_ABI_VERSION);
  /* Generation 0 (and LLVM 20's xray-dso): registration. */
  FUNCTION(__xray_register_dso, int32_t(const void *, const void *, const void *, const void *,
                                         struct xr_dso_trampolines));
  FUNCTION(__xray_deregister_dso, bool(int32_t));
  SIZE(xr_dso_trampolines);
  MEMBER(xr_dso_trampolines, entry);
  MEMBER(xr_dso_trampolines, exit);
  MEMBER(xr_dso_trampolines, tail_exit);
  MEMBER(xr_dso_trampolines, log_args);
  NUMBER(XR_OBJECT_SHIFT);
  NUMBER(XR_MAX_OBJECTS);
  NUMBER(ENTRY);
  NUMBER(EXIT);
  NUMBER(TAIL);
  NUMBER(LOG_ARGS_ENTRY);
  /* Generation 1: the dispatch copy, slots by trampoline number. */
  FUNCTION(__xray_dso_dispatch, void(int32_t, void *volatile *));
  NUMBER(XR_T_ENTRY);
  NUMBER(XR_T_EXIT);
  NUMBER(XR_T_TAIL);
  NUMBER(XR_T_ARG);
  NUMBER(XR_T_CALL_COUNT);
  /* Generation 2: dense paths and their handler copy. */
  FUNCTION(__xray_dso_dense_dispatch, void(int32_t, const struct xr_dso_dense *));
  SIZE(xr_dso_dense);
  MEMBER(xr_dso_dense, slots);
  MEMBER(xr_dso_dense, handlers);
  MEMBER(xr_dso_dense, id_offset);
  MEMBER(xr_dso_dense, paths);
  NUMBER(XR_SLOT_ARG0);
  NUMBER(XR_SLOT_ARG1);
  /* Generation 3: dense paths that pass the sled's stack pointer last. */
  FUNCTION(__xray_dso_dense_dispatch_sp, void(int32_t, const struct xr_dso_dense *));
  return 0;
}
