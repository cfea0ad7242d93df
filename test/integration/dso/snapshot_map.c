/* Loads argv[2] (snap1.so), argv[3] (snap2.so) and argv[4] (snap3.so) with
 * dlopen and calls snap<k>_fn k+1 times each, exe_leaf twice, and unloads
 * snap3.so; then, by argv[1]: "api" takes an FDR snapshot and prints its
 * name, "crash" calls snap2_crash(NULL), which faults in snap2.so, and
 * "memory" finalizes, writes the buffers __xray_log_process_buffers hands
 * out to mem.fdr, and prints the name __xray_fdr_object_map gives its map. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_fdr.h>
#include <xray/xray_log_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }

NI static void *sym(void *h, const char *name) {
  void *f = h ? dlsym(h, name) : NULL;
  if (f == NULL)
    fprintf(stderr, "%s: %s\n", name, dlerror());
  return f;
}

static FILE *out;
NI static void save(const char *mode, XRayBuffer b) {
  (void)mode;
  fwrite(b.Data, 1, b.Size, out);
}

NI static int memory(void) {
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED || (out = fopen("mem.fdr", "wb")) == NULL)
    return 5;
  __xray_log_process_buffers(save);
  fclose(out);
  char map[4096];
  int rc = __xray_fdr_object_map("mem.fdr", map, sizeof map);
  printf("%d %s\n", rc, map);
  return __xray_log_flushLog() == XRAY_LOG_FLUSHED ? 0 : 6;
}

NI int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  void *h[4];
  for (int k = 1; k <= 3; k++) {
    char name[32];
    snprintf(name, sizeof name, "snap%d_fn", k);
    h[k] = dlopen(argv[k + 1], RTLD_NOW);
    int (*fn)(int) = (int (*)(int))sym(h[k], name);
    if (fn == NULL)
      return 1;
    for (int i = 0; i <= k; i++)
      sink = fn(i);
  }
  for (int i = 0; i < 2; i++)
    sink = exe_leaf(i);
  dlclose(h[3]);
  if (strcmp(argv[1], "crash") == 0) {
    void (*crash)(volatile int *) = (void (*)(volatile int *))sym(h[2], "snap2_crash");
    if (crash == NULL)
      return 1;
    crash(NULL);
    return 3;
  }
  if (strcmp(argv[1], "memory") == 0)
    return memory();
  char path[4096];
  XRaySnapshotStatus st = __xray_fdr_snapshot(path, sizeof path);
  if (st != XRAY_SNAPSHOT_OK)
    return 4;
  printf("%s\n", path);
  return 0;
}
