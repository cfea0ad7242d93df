/* Loads the plugin given as argv[1], patches everything and counts the
 * events of the plugin's object: "plugin events=10 objects=2". */
#include <dlfcn.h>
#include <stdio.h>
#include <xray/xray_interface.h>

static int plugin_events;

/* Built with XRay::xray the executable has a map of its own; built with
 * XRay::host (host_plugin) it has none: the plugin is object 1 either way. */
__attribute__((xray_always_instrument, noinline)) int app_leaf(int x) { return x + 1; }

__attribute__((xray_never_instrument)) static void count(int32_t id, XRayEntryType type) {
  (void)type;
  if (__xray_unpack_object_id(id) == 1)
    plugin_events++;
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
  int (*twice)(int) = h ? (int (*)(int))dlsym(h, "plugin_twice") : NULL;
  if (twice == NULL) {
    fprintf(stderr, "cannot load the plugin: %s\n", dlerror());
    return 1;
  }
  __xray_set_handler(count);
  __xray_patch();
  int sum = 0;
  for (int i = 0; i < 5; i++)
    sum += twice(app_leaf(i) - 1);
  printf("plugin events=%d objects=%zu sum=%d\n", plugin_events, __xray_num_objects(), sum);
  return 0;
}
