/* pprof with shared objects: the executable calls into libfirst.so (which
 * calls libsecond.so) and into a dlopen'd plugin.so (sources in ../dso/).
 * Every object gets its own mapping; names come from each object's file. */
#include <dlfcn.h>
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

int first_add(int x);
static volatile int sink;
__attribute__((noinline)) int exe_fn(int x) { return first_add(x) + 1; }

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc < 3)
    return 1;
  void *h = dlopen(argv[1], RTLD_NOW);
  int (*plugin_fn)(int) = h != NULL ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
  if (plugin_fn == NULL)
    return 2;
  if (__xray_log_init_mode("xray-profiling", argv[2]) != XRAY_LOG_INITIALIZED)
    return 3;
  __xray_patch();
  for (int i = 0; i < 3; i++)
    sink += exe_fn(i);
  for (int i = 0; i < 2; i++)
    sink += plugin_fn(i);
  __xray_log_finalize();
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 4;
  dlclose(h);
  return 0;
}
