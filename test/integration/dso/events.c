/* dlopens events_plugin.so, patches everything and prints what the custom,
 * typed and function handlers saw from it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }

NI static void fn_handler(int32_t id, XRayEntryType type) {
  printf("function object %d function %d %s\n", __xray_unpack_object_id(id),
         __xray_unpack_function_id(id), type == ENTRY ? "entry" : "exit");
}
NI static void custom(void *data, size_t size) {
  printf("custom %.*s\n", (int)size, (const char *)data);
}
NI static void typed(uint16_t type, const void *data, size_t size) {
  printf("typed %u %.*s\n", type, (int)size, (const char *)data);
}

NI int main(int argc, char **argv) {
  void *h = dlopen(argv[argc - 1], RTLD_NOW);
  int (*fn)(int) = h ? (int (*)(int))dlsym(h, "plugin_events") : NULL;
  if (fn == NULL) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  __xray_set_handler(fn_handler);
  __xray_set_customevent_handler(custom);
  __xray_set_typedevent_handler(typed);
  printf("patch object 1: %d\n", __xray_patch_object(1));
  sink = fn(1);
  printf("unpatch object 1: %d\n", __xray_unpatch_object(1));
  sink = fn(2);
  printf("done\n");
  return 0;
}
