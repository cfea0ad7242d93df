/* Linked into a copy of plugin.so (fdr_objects.sh) to make it an object of
 * a libxray-dso.a without dense paths: these hidden definitions take the
 * place of the weak references in dso_init.c and registers the dispatch
 * copy the old way, with __xray_dso_dispatch. Instrumented on purpose: it
 * runs after registration patched the object and before the dispatch copy
 * is given, when no event of the object may reach a mode (it is in no
 * log). */
#include <stdint.h>

struct dense_args {
  void *volatile *slots;
  void *volatile *handlers;
  int32_t *id_offset;
  void (*paths[4])(void);
};
void __xray_dso_dispatch(int32_t id, void *volatile *slots);

__attribute__((visibility("hidden"))) void
__xray_dso_dense_dispatch(int32_t id, const struct dense_args *d) {
  __xray_dso_dispatch(id, d->slots);
}

/* Newer objects ask for the dispatch with their dense paths passing the
 * stack pointer first: the old way too. */
__attribute__((visibility("hidden"))) void
__xray_dso_dense_dispatch_sp(int32_t id, const struct dense_args *d) {
  __xray_dso_dispatch(id, d->slots);
}
