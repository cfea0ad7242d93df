/* Names across objects: the executable, a linked libfirst.so (-> libsecond.so)
 * and a dlopen'd plugin.so (sources in test/integration/dso/). Modes:
 *   run P    patch_premain with xray_patch / xray_skip from XRAY_OPTIONS:
 *            load the plugin, call everything, print the named events
 *   run P fork   the same, then a child that calls exit() (the parent's
 *            atexit list: it must not say the exit messages again)
 *   api P    __xray_patch_matching across objects, ids and names of each
 *            object's functions, symbolize's object path, dlclose/reload
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xray/xray_interface.h>
#include <xray/xray_names.h>

int first_add(int x);
int first_other(int x);

#define NI __attribute__((xray_never_instrument))
static volatile int sink, seven = 7;
__attribute__((noinline)) int exe_leaf(int x) { return x + seven; }

static struct {
  int32_t id;
  XRayEntryType type;
  const char *name;
} events[256];
static int n_events;
NI static void handler(int32_t id, XRayEntryType type) {
  XRaySymbolInfo info;
  if (n_events < 256)
    events[n_events++] = (typeof(events[0])){id, type, __xray_symbolize(id, &info) ? info.function : "?"};
}

/* "<object>:<name>:<E|X>" per event, then cleared. */
NI static void flush(const char *what) {
  printf("%s:", what);
  for (int i = 0; i < n_events; i++)
    printf(" %d:%s:%c", __xray_unpack_object_id(events[i].id), events[i].name,
           "EXTA"[events[i].type]);
  printf("\n");
  n_events = 0;
}

NI static void call_all(int (*plugin)(int)) {
  sink = exe_leaf(1);
  sink = first_add(2);
  sink = first_other(3);
  if (plugin)
    sink = plugin(4);
}

/* "name -> object:function (file)" for a name, through the API. */
NI static void describe(const char *name) {
  int32_t ids[4];
  int n = __xray_function_ids(name, ids, 4);
  printf("%s ->", name);
  for (int i = 0; i < n && i < 4; i++) {
    char back[64];
    XRaySymbolInfo info;
    const char *file = "?";
    if (__xray_symbolize(ids[i], &info) && info.object != NULL) {
      file = strrchr(info.object, '/');
      file = file ? file + 1 : info.object;
    }
    int ok = __xray_function_name(ids[i], back, sizeof back) >= 0 && strcmp(back, name) == 0 &&
             (info.address == __xray_function_address(ids[i]) ||
              __xray_function_address(ids[i]) == 0); /* 0: unloaded */
    printf(" %d:%d (%s)%s", __xray_unpack_object_id(ids[i]), __xray_unpack_function_id(ids[i]),
           file, ok ? "" : " MISMATCH");
  }
  if (n < 0)
    printf(" status %d", n);
  printf("\n");
}

NI static int count_visit(void *ctx, int32_t id, const char *name, const char *symbol,
                          uintptr_t address) {
  (void)name, (void)symbol;
  int *per_object = ctx;
  int obj = __xray_unpack_object_id(id);
  if (obj < 8 && address == __xray_function_address(id))
    per_object[obj]++;
  return 0;
}

NI int main(int argc, char **argv) {
  const char *plugin_path = argv[2];
  __xray_set_handler(handler);
  void *h = dlopen(plugin_path, RTLD_NOW);
  int (*plugin)(int) = (int (*)(int))dlsym(h, "plugin_fn");
  if (strcmp(argv[1], "run") == 0) { /* patch_premain + options */
    call_all(plugin);
    flush("premain");
    if (argc > 3 && strcmp(argv[3], "fork") == 0) {
      fflush(stdout);
      pid_t child = fork();
      if (child == 0)
        exit(0);
      int status = -1;
      waitpid(child, &status, 0);
      printf("child: %d\n", status);
    }
    return 0;
  }
  printf("patch 'first_*;plugin_leaf': %d\n", __xray_patch_matching("first_*;plugin_leaf"));
  call_all(plugin);
  flush("matching");
  printf("unpatch '*': %d\n", __xray_unpatch_matching("*") > 0);
  call_all(plugin);
  flush("unpatched");
  describe("exe_leaf");
  describe("first_add");
  describe("second_mul");
  describe("plugin_fn");
  int per_object[8] = {0};
  printf("for_each: %d,", __xray_for_each_function(count_visit, per_object));
  for (int i = 0; i < (int)__xray_num_objects() && i < 8; i++)
    printf(" %d", per_object[i] == (int)__xray_max_function_id_in_object(i));
  printf("\n");
  dlclose(h);
  printf("after dlclose: patch 'plugin_*': %d, name kept: ", __xray_patch_matching("plugin_*"));
  describe("plugin_fn");
  __xray_unpatch();
  h = dlopen(plugin_path, RTLD_NOW);
  plugin = (int (*)(int))dlsym(h, "plugin_fn");
  printf("reloaded: patch 'plugin_fn': %d\n", __xray_patch_matching("plugin_fn"));
  call_all(plugin);
  flush("reloaded");
  return 0;
}
