/* An executable, a linked chain of two shared objects (libfirst.so ->
 * libsecond.so) and a dlopen'd plugin.so: exact event sequences per object
 * through a user handler, packed ids through the LLVM 20 API, patching by
 * object and by packed function id, dlclose and dlopen again (at another
 * address: the old one is held, so nothing the runtime kept of the first load
 * can be used again). Prints one line per step; objects.expected holds the
 * exact output. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <string.h>
#include <xray/xray_interface.h>

#include <stdbool.h>

bool __xray_deregister_dso(int32_t object_id); /* the DSO ABI, not the API */
int first_add(int x);
int first_other(int x);

/* Only the functions under test are instrumented; the test's own are not. */
#define NI __attribute__((xray_never_instrument))
static volatile int sink, seven = 7;
__attribute__((noinline)) int exe_leaf(int x) { return x + seven; }

static struct { int32_t id; XRayEntryType type; } events[256];
static int n_events;
NI static void handler(int32_t id, XRayEntryType type) {
  if (n_events < 256)
    events[n_events++] = (typeof(events[0])){id, type};
}

NI static const char *name_of(int32_t id) {
  void *addr = (void *)__xray_function_address(id);
  if (addr == (void *)exe_leaf)
    return "exe_leaf";
  Dl_info info;
  if (addr && dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr)
    return info.dli_sname;
  return "?";
}

/* Prints and clears the events: "<object> <name> <E|X|T>". */
NI static void flush(const char *what) {
  printf("%s:", what);
  for (int i = 0; i < n_events; i++)
    printf(" %d:%s:%c", __xray_unpack_object_id(events[i].id), name_of(events[i].id),
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

/* The packed id of the function at addr in object obj, or 0. */
NI static int32_t find(void *addr, int32_t obj) {
  for (size_t f = 1; f <= __xray_max_function_id_in_object(obj); f++)
    if ((void *)__xray_function_address_in_object((int32_t)f, obj) == addr)
      return __xray_pack_id((int32_t)f, obj);
  return 0;
}

NI static int round_trips(void) {
  int bad = 0;
  for (int32_t obj = 0; obj < (int32_t)__xray_num_objects(); obj++)
    for (int32_t f = 1; f <= (int32_t)__xray_max_function_id_in_object(obj); f++) {
      int32_t p = __xray_pack_id(f, obj);
      bad += __xray_unpack_function_id(p) != f || __xray_unpack_object_id(p) != obj ||
             __xray_function_address(p) != __xray_function_address_in_object(f, obj) ||
             (obj == 0 && p != f);
    }
  return bad;
}

/* Where the object of base `base` is loaded: [base, base + size). */
struct span {
  uintptr_t base;
  size_t size;
};
NI static int span_of(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  struct span *s = ctx;
  if (info->dlpi_addr != s->base)
    return 0;
  for (int k = 0; k < info->dlpi_phnum; k++)
    if (info->dlpi_phdr[k].p_type == PT_LOAD &&
        info->dlpi_phdr[k].p_vaddr + info->dlpi_phdr[k].p_memsz > s->size)
      s->size = info->dlpi_phdr[k].p_vaddr + info->dlpi_phdr[k].p_memsz;
  return 1;
}

NI int main(int argc, char **argv) {
  const char *plugin_path = argv[1];
  int premain = argc > 2 && strcmp(argv[2], "premain") == 0;
  printf("objects %zu, max ids %zu %zu %zu\n", __xray_num_objects(),
         __xray_max_function_id_in_object(0), __xray_max_function_id_in_object(1),
         __xray_max_function_id_in_object(2));
  __xray_set_handler(handler);
  if (premain) { /* patch_premain=true: every object at once, dlopen'd too */
    call_all(NULL);
    flush("premain");
    void *h = dlopen(plugin_path, RTLD_NOW);
    int (*plugin)(int) = (int (*)(int))dlsym(h, "plugin_fn");
    call_all(plugin);
    flush("premain dlopen");
    return 0;
  }
  call_all(NULL);
  flush("unpatched");
  printf("patch %d\n", __xray_patch());
  call_all(NULL);
  flush("all");

  void *h = dlopen(plugin_path, RTLD_NOW);
  int (*plugin)(int) = (int (*)(int))dlsym(h, "plugin_fn");
  printf("dlopen: objects %zu\n", __xray_num_objects());
  call_all(plugin);
  flush("plugin unpatched");
  printf("patch object 3: %d\n", __xray_patch_object(3));
  call_all(plugin);
  flush("plugin patched");

  printf("unpatch object 2: %d\n", __xray_unpatch_object(2));
  call_all(plugin);
  flush("without libfirst");

  printf("unpatch %d\n", __xray_unpatch());
  int32_t id = find(dlsym(RTLD_DEFAULT, "first_add"), 2);
  printf("first_add is function %d of object %d\n", __xray_unpack_function_id(id),
         __xray_unpack_object_id(id));
  printf("patch first_add: %d\n", __xray_patch_function(id));
  printf("patch plugin_leaf: %d\n",
         __xray_patch_function_in_object(
             __xray_unpack_function_id(find(dlsym(h, "plugin_leaf"), 3)), 3));
  call_all(plugin);
  flush("two functions");
  printf("round trips bad %d\n", round_trips());

  Dl_info plugin_info;
  struct span old = {0, 0};
  if (dladdr((void *)plugin, &plugin_info)) {
    old.base = (uintptr_t)plugin_info.dli_fbase;
    dl_iterate_phdr(span_of, &old);
  }
  dlclose(h);
  /* The plugin's old place stays taken: it loads again elsewhere. */
  void *hold = old.size ? mmap((void *)old.base, old.size, PROT_NONE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
                        : MAP_FAILED;
  printf("dlclose: objects %zu, patch %d, patch object 3: %d, address %d\n",
         __xray_num_objects(), __xray_patch(), __xray_patch_object(3),
         __xray_function_address(__xray_pack_id(1, 3)) != 0);
  call_all(NULL);
  flush("after dlclose");
  h = dlopen(plugin_path, RTLD_NOW);
  plugin = (int (*)(int))dlsym(h, "plugin_fn");
  bool elsewhere = hold == (void *)old.base && dladdr((void *)plugin, &plugin_info) &&
                   (uintptr_t)plugin_info.dli_fbase != old.base;
  printf("dlopen again: objects %zu, plugin_fn in object 3: %d, elsewhere %d\n",
         __xray_num_objects(), find((void *)plugin, 3) != 0, elsewhere);
  call_all(plugin);
  flush("reloaded unpatched");
  printf("patch object 3: %d\n", __xray_patch_object(3));
  call_all(plugin);
  flush("reloaded patched");
  printf("unpatch %d\n", __xray_unpatch());
  printf("range in object 3: %d, across objects 2 and 3: %d\n",
         __xray_patch_function_range(__xray_pack_id(1, 3), __xray_pack_id(2, 3)),
         __xray_patch_function_range(__xray_pack_id(1, 2), __xray_pack_id(1, 3)));
  call_all(plugin);
  flush("range");
  printf("deregister 0: %d, 99: %d\n", __xray_deregister_dso(0), __xray_deregister_dso(99));
  return 0;
}
