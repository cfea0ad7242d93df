/* A host built WITHOUT -fxray-instrument (an interpreter, say): no
 * instrumentation map of its own, libxray.a linked whole, one instrumented
 * shared object linked (libhostlib.so, object 1) and one dlopen'd
 * (plugin.so, object 2). The runtime initialises with object 0 empty.
 *   host events PLUGIN   exact event sequences through a user handler, the
 *                        statuses of the patching API, the names API;
 *                        host.expected holds the exact output
 *   host premain PLUGIN  the same handler under patch_premain=true:
 *                        the linked object is patched at start, the
 *                        plugin when it is loaded
 *   host work PLUGIN     a fixed workload for the modes chosen by
 *                        XRAY_OPTIONS: lib_add x5 (each calls lib_mul),
 *                        plugin_fn x4 (each calls plugin_leaf)
 * Built with -DHOST_ONLY_PLUGIN (host_dl) it links no instrumented object:
 * the dlopen'd plugin is object 1, the first map the runtime sees. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_names.h>

#ifdef HOST_ONLY_PLUGIN /* host_dl: no linked object, the plugin is the first */
static int lib_add(int x) { return x; }
#else
int lib_add(int x); /* libhostlib.so */
#endif

static volatile int sink;
static struct {
  int32_t id;
  XRayEntryType type;
} events[256];
static int n_events;
static void handler(int32_t id, XRayEntryType type) {
  if (n_events < 256)
    events[n_events++] = (typeof(events[0])){id, type};
}

/* The symbol at the id's address, by the loader (not the runtime's names). */
static const char *symbol_of(int32_t id) {
  void *addr = (void *)__xray_function_address(id);
  Dl_info info;
  if (addr && dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr)
    return info.dli_sname;
  return "?";
}

/* Prints and clears the events: "<packed id in hex>:<symbol>:<E|X>". */
static void flush(const char *what) {
  printf("%s:", what);
  for (int i = 0; i < n_events; i++)
    printf(" %#x:%s:%c", (unsigned)events[i].id, symbol_of(events[i].id),
           "EXTA"[events[i].type]);
  printf("\n");
  n_events = 0;
}

static void call_all(int (*plugin)(int)) {
  sink = lib_add(1);
  if (plugin)
    sink = plugin(2);
}

static int (*load(const char *path))(int) {
  void *h = dlopen(path, RTLD_NOW);
  int (*fn)(int) = h ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
  if (fn == NULL)
    printf("dlopen %s: %s\n", path, dlerror());
  return fn;
}

/* Every function of every object by the runtime's names API. */
static int print_name(void *ctx, int32_t id, const char *name, const char *symbol,
                      uintptr_t address) {
  (void)ctx;
  printf(" %#x=%s%s", (unsigned)id, name,
         symbol != NULL && strcmp(symbol, name) == 0 &&
                 address == __xray_function_address(id)
             ? ""
             : "(mismatch)");
  return 0;
}

static int events_run(const char *plugin_path) {
  printf("objects %zu, object 0 functions %zu, object 1 functions %zu\n",
         __xray_num_objects(), __xray_max_function_id(), __xray_max_function_id_in_object(1));
  /* Before any dlopen: the runtime is initialised, object 0 has no sled. */
  printf("set handler %d\n", __xray_set_handler(handler));
  printf("patch object 0: %d, function 1: %d\n", __xray_patch_object(0),
         __xray_patch_function(1));
  call_all(NULL);
  flush("unpatched");
  printf("patch %d\n", __xray_patch());
  call_all(NULL);
  flush("linked object");

  int (*plugin)(int) = load(plugin_path);
  if (plugin == NULL)
    return 1;
  printf("dlopen: objects %zu, object 2 functions %zu\n", __xray_num_objects(),
         __xray_max_function_id_in_object(2));
  call_all(plugin);
  flush("plugin unpatched");
  printf("patch object 2: %d\n", __xray_patch_object(2));
  call_all(plugin);
  flush("both objects");

  printf("unpatch %d\n", __xray_unpatch());
  call_all(plugin);
  flush("unpatched again");
  int32_t leaf[2];
  int n = __xray_function_ids("plugin_leaf", leaf, 2);
  printf("plugin_leaf ids %d: %#x, patch it: %d\n", n, n > 0 ? (unsigned)leaf[0] : 0u,
         n > 0 ? __xray_patch_function(leaf[0]) : -1);
  printf("patch lib_mul by name: %d\n", __xray_patch_matching("lib_mul"));
  call_all(plugin);
  flush("two functions");
  printf("unpatch %d\n", __xray_unpatch());
  printf("range in object 2: %d\n",
         __xray_patch_function_range(__xray_pack_id(1, 2), __xray_pack_id(2, 2)));
  call_all(plugin);
  flush("range");
  printf("names:");
  printf(" (%d)\n", __xray_for_each_function(print_name, NULL));
  return 0;
}

static int premain_run(const char *plugin_path) {
  printf("set handler %d\n", __xray_set_handler(handler));
  call_all(NULL);
  flush("premain");
  int (*plugin)(int) = load(plugin_path);
  if (plugin == NULL)
    return 1;
  call_all(plugin);
  flush("premain dlopen");
  return 0;
}

static int work_run(const char *plugin_path) {
  int (*plugin)(int) = load(plugin_path);
  if (plugin == NULL)
    return 1;
  for (int i = 0; i < 5; i++)
    sink = lib_add(i);
  for (int i = 0; i < 4; i++)
    sink = plugin(i);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  if (strcmp(argv[1], "events") == 0)
    return events_run(argv[2]);
  if (strcmp(argv[1], "premain") == 0)
    return premain_run(argv[2]);
  if (strcmp(argv[1], "work") == 0)
    return work_run(argv[2]);
  return 2;
}
