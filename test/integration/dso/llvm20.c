/* Loads llvm20.so (registered by its own LLVM-20-style code), patches it
 * and prints the events its functions produce through the user handler,
 * then the same under a built-in mode's lean handler (basic) is checked by
 * llvm20.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }

static int32_t ids[64];
static int types[64], n;
NI static void handler(int32_t id, XRayEntryType type) {
  if (n < 64) {
    ids[n] = id;
    types[n++] = type;
  }
}

NI int main(int argc, char **argv) {
  void *h = dlopen(argv[argc - 1], RTLD_NOW);
  int (*fn)(int) = h ? (int (*)(int))dlsym(h, "llvm20_fn") : NULL;
  int (*obj)(void) = h ? (int (*)(void))dlsym(h, "llvm20_object_id") : NULL;
  if (!fn || !obj)
    return 1;
  printf("registered as object %d of %zu, %zu functions\n", obj(), __xray_num_objects(),
         __xray_max_function_id_in_object(obj()));
  if (argc == 2) /* else a mode from XRAY_OPTIONS records */
    __xray_set_handler(handler);
  printf("patch %d\n", __xray_patch());
  sink = exe_leaf(1) + fn(2);
  for (int i = 0; i < n; i++) {
    Dl_info info;
    void *addr = (void *)__xray_function_address(ids[i]);
    const char *name = addr == (void *)exe_leaf ? "exe_leaf"
                       : dladdr(addr, &info) && info.dli_saddr == addr ? info.dli_sname
                                                                        : "?";
    printf("%d:%s:%c\n", __xray_unpack_object_id(ids[i]), name, "EXT"[types[i]]);
  }
  dlclose(h);
  printf("after dlclose: patch %d\n", __xray_patch());
  return 0;
}
