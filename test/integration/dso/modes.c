/* A fixed workload across the executable, a linked chain of shared objects
 * (libfirst.so -> libsecond.so) and a dlopen'd plugin.so, for the modes
 * (basic, FDR, profiling) chosen by XRAY_OPTIONS with patch_premain=true:
 *   exe_leaf x3, first_add x5 (each calls second_mul), plugin_fn x4 (each
 *   calls plugin_leaf). The log is written at exit. With "delete" after
 * the plugin's path, the plugin's file is removed once it is loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NI __attribute__((xray_never_instrument))
int first_add(int x);
static volatile int sink, seven = 7;
__attribute__((noinline)) int exe_leaf(int x) { return x + seven; }

NI int main(int argc, char **argv) {
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
  int (*plugin)(int) = h ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
  if (plugin == NULL) {
    fprintf(stderr, "no plugin: %s\n", dlerror());
    return 1;
  }
  if (argc > 2 && strcmp(argv[2], "delete") == 0)
    unlink(argv[1]); /* its names must degrade, not fail */
  for (int i = 0; i < 3; i++)
    sink = exe_leaf(i);
  for (int i = 0; i < 5; i++)
    sink = first_add(i);
  for (int i = 0; i < 4; i++)
    sink = plugin(i);
  return 0;
}
