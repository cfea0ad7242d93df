/* A thread takes 40 FDR snapshots while main loads, calls and unloads
 * argv[1..] (snap<k>.so, from snapshot_map.sh) five times over: the
 * snapshots' maps are rendered while objects come and go. argv[1] is
 * loaded first and kept, so every snapshot has a shared object (and a
 * map). Prints how many snapshots were written. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <xray/xray_fdr.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }

NI static void *snapshots(void *arg) {
  int *written = arg;
  for (int i = 0; i < 40; i++) {
    char path[4096];
    *written += __xray_fdr_snapshot(path, sizeof path) == XRAY_SNAPSHOT_OK;
    sink = exe_leaf(i);
  }
  return NULL;
}

NI int main(int argc, char **argv) {
  pthread_t t;
  int written = 0;
  if (argc < 2 || dlopen(argv[1], RTLD_NOW) == NULL ||
      pthread_create(&t, NULL, snapshots, &written) != 0)
    return 1;
  for (int round = 0; round < 5; round++)
    for (int k = 1; k < argc; k++) {
      char name[32];
      snprintf(name, sizeof name, "snap%d_fn", k);
      void *h = dlopen(argv[k], RTLD_NOW);
      int (*fn)(int) = h ? (int (*)(int))dlsym(h, name) : NULL;
      if (fn == NULL)
        return 1;
      sink = fn(k);
      dlclose(h);
    }
  pthread_join(t, NULL);
  printf("snapshots %d\n", written);
  return 0;
}
