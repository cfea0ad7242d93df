/* Loads copies of plugin.so (argv[2..]: distinct files, so distinct
 * objects) and calls plugin_fn of each once. argv[1]: "count" installs a
 * handler counting events per object and prints the objects that produced
 * events; anything else leaves recording to the mode of XRAY_OPTIONS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }
static int per_object[256];

NI static void handler(int32_t id, XRayEntryType type) {
  (void)type;
  per_object[__xray_unpack_object_id(id)]++;
}

NI int main(int argc, char **argv) {
  int count = strcmp(argv[1], "count") == 0;
  if (count)
    __xray_set_handler(handler);
  for (int i = 2; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW);
    int (*fn)(int) = h ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
    if (fn == NULL)
      return 1;
    if (count)
      __xray_patch();
    sink = fn(i);
  }
  printf("objects %zu\n", __xray_num_objects());
  if (count) {
    int with = 0, first = 0, last = 0;
    for (int o = 0; o < 256; o++)
      if (per_object[o]) {
        with++;
        last = o;
        first = first ? first : o;
        if (per_object[o] != 4)
          printf("object %d: %d events\n", o, per_object[o]);
      }
    printf("objects with events: %d (%d..%d)\n", with, first, last);
  }
  return 0;
}
