/* FDR started after a shared object was loaded and patched (history.sh, an
 * object of generation 0): loads PLUGIN, patches everything with no mode
 * running, starts FDR through the API, patches everything again, then
 * exe_leaf x3 and plugin_fn x4 (each calls plugin_leaf). Prints the status
 * of each patching call (1 SUCCESS, 3 FAILED). With "wait" after PLUGIN,
 * prints "recording" once FDR runs and waits for a line on stdin (the test
 * asks xrayctl meanwhile). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink, seven = 7;
__attribute__((noinline)) int exe_leaf(int x) { return x + seven; }

NI int main(int argc, char **argv) {
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
  int (*plugin)(int) = h ? (int (*)(int))dlsym(h, "plugin_fn") : NULL;
  if (plugin == NULL) {
    fprintf(stderr, "no plugin: %s\n", dlerror());
    return 1;
  }
  int32_t object = (int32_t)__xray_num_objects() - 1; /* the plugin: last */
  printf("patch before fdr %d\n", __xray_patch());
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode("xray-fdr", "") != XRAY_LOG_INITIALIZED) {
    fprintf(stderr, "fdr did not start\n");
    return 1;
  }
  printf("patch %d\n", __xray_patch());
  printf("patch object %d\n", __xray_patch_object(object));
  if (argc > 2 && strcmp(argv[2], "wait") == 0) {
    char line[8];
    printf("recording\n");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL)
      return 1;
  }
  for (int i = 0; i < 3; i++)
    sink = exe_leaf(i);
  for (int i = 0; i < 4; i++)
    sink = plugin(i);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRAY_LOG_FLUSHED) {
    fprintf(stderr, "fdr did not finish\n");
    return 1;
  }
  return 0;
}
