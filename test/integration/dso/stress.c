/* dlopen/dlclose in a loop while two threads call into linked objects and a
 * third patches: no crash, no event with an invalid id, exact counts.
 * Run with XRAY_OPTIONS=patch_premain=true (every object patched at load).
 *
 * Phase 1 (exact): the patcher repeatedly patches everything (identical
 * bytes, but every call makes the pages of every loaded object writable and
 * writes them, plugin.so included, while it is loaded and unloaded), so
 * every call is traced: counts per object are exact.
 * Phase 2 (toggling): the patcher alternates __xray_patch / __xray_unpatch;
 * counts depend on timing, so only validity is checked; then everything is
 * patched again and one exact round follows. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument))
enum { CALLS = 20000, LOOPS = 150, PLUGIN_CALLS = 10, OBJECTS = 4 };

int first_add(int x);
static volatile int one = 1;
__attribute__((noinline)) int exe_leaf(int x) { return x + one; }

static const char *plugin_path;
static long events[OBJECTS], bad;
static size_t max_id[OBJECTS];
static int done, statuses[4];
static volatile int sink;

NI static void handler(int32_t id, XRayEntryType type) {
  (void)type;
  int32_t obj = __xray_unpack_object_id(id), fn = __xray_unpack_function_id(id);
  if (obj >= OBJECTS || fn < 1 || (size_t)fn > max_id[obj])
    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
  else
    __atomic_fetch_add(&events[obj], 1, __ATOMIC_RELAXED);
}

NI static void *caller(void *arg) {
  (void)arg;
  for (int i = 0; i < CALLS; i++)
    sink = first_add(exe_leaf(i));
  return NULL;
}

/* Loads, calls and unloads the plugin; it must get object id 3 every time. */
NI static void *loader(void *arg) {
  (void)arg;
  for (int i = 0; i < LOOPS; i++) {
    void *h = dlopen(plugin_path, RTLD_NOW);
    int (*fn)(int) = h ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
    if (fn == NULL || __xray_num_objects() != OBJECTS) {
      __atomic_fetch_add(&bad, 1000000, __ATOMIC_RELAXED);
      return NULL;
    }
    for (int k = 0; k < PLUGIN_CALLS; k++)
      sink = fn(k);
    dlclose(h);
  }
  return NULL;
}

NI static void *patcher(void *arg) {
  int toggle = *(int *)arg;
  for (int n = 0; !__atomic_load_n(&done, __ATOMIC_ACQUIRE); n++) {
    XRayPatchingStatus s = toggle && (n & 1) ? __xray_unpatch() : __xray_patch();
    __atomic_fetch_add(&statuses[s & 3], 1, __ATOMIC_RELAXED);
  }
  if (toggle)
    __xray_patch();
  return NULL;
}

NI static void phase(int toggle) {
  pthread_t t[4];
  for (int i = 0; i < OBJECTS; i++)
    events[i] = 0;
  done = 0;
  pthread_create(&t[0], NULL, patcher, &toggle);
  pthread_create(&t[1], NULL, caller, NULL);
  pthread_create(&t[2], NULL, caller, NULL);
  pthread_create(&t[3], NULL, loader, NULL);
  for (int i = 1; i < 4; i++)
    pthread_join(t[i], NULL);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t[0], NULL);
}

NI int main(int argc, char **argv) {
  plugin_path = argv[1];
  (void)argc;
  void *h = dlopen(plugin_path, RTLD_NOW); /* learn the plugin's id and size */
  for (int i = 0; i < OBJECTS; i++)
    max_id[i] = __xray_max_function_id_in_object(i);
  dlclose(h);
  __xray_set_handler(handler);

  phase(0);
  printf("exact: exe %ld, libsecond %ld, libfirst %ld, plugin %ld, bad %ld, failed %d, objects %zu\n",
         events[0], events[1], events[2], events[3], bad, statuses[FAILED & 3],
         __xray_num_objects());
  phase(1);
  printf("toggling: bad %ld, failed %d, objects %zu\n", bad, statuses[FAILED & 3],
         __xray_num_objects());
  for (int i = 0; i < OBJECTS; i++)
    events[i] = 0;
  h = dlopen(plugin_path, RTLD_NOW);
  sink = first_add(1) + ((int (*)(int))dlsym(h, "plugin_fn"))(1);
  printf("after: libsecond %ld, libfirst %ld, plugin %ld\n", events[1], events[2], events[3]);
  return 0;
}
