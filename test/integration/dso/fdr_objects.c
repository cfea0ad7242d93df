/* Loads argv[1..40] (obj<k>.so, from fdr_objects.sh) with dlopen and calls
 * obj<k>_fn k times each; then unloads obj5 and obj7, loads obj5 again
 * (the same file: its object id and ids come back) and calls it 100 times,
 * and loads argv[41] (obj41.so, a new object) and calls it 41 times. The
 * executable's exe_leaf runs 3 times. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <xray/xray_interface.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((noinline)) int exe_leaf(int x) { return x + sink; }

NI static void *load(const char *path, int k, int (**fn)(int)) {
  char name[32];
  snprintf(name, sizeof name, "obj%d_fn", k);
  void *h = dlopen(path, RTLD_NOW);
  *fn = h ? (int (*)(int))dlsym(h, name) : NULL;
  if (*fn == NULL)
    fprintf(stderr, "%s: %s\n", path, dlerror());
  return *fn ? h : NULL;
}

NI int main(int argc, char **argv) {
  if (argc != 42)
    return 2;
  void *h[42];
  int (*fn)(int);
  for (int k = 1; k <= 40; k++) {
    if ((h[k] = load(argv[k], k, &fn)) == NULL)
      return 1;
    for (int i = 0; i < k; i++)
      sink = fn(i);
  }
  for (int i = 0; i < 3; i++)
    sink = exe_leaf(i);
  dlclose(h[5]);
  dlclose(h[7]);
  if (load(argv[5], 5, &fn) == NULL)
    return 1;
  for (int i = 0; i < 100; i++)
    sink = fn(i);
  if (load(argv[41], 41, &fn) == NULL)
    return 1;
  for (int i = 0; i < 41; i++)
    sink = fn(i);
  printf("objects %zu\n", __xray_num_objects());
  return 0;
}
