/* budget.dso's program: loads budget_plugin.so, calls its hot function until
 * the budget culls it, unloads it (the budget forgets its functions: the
 * status counts no culled one), loads it again (a new registration, all
 * patched again by patch_premain) and calls it until it is culled again;
 * then writes the profile (and <log>.culled) with the plugin loaded.
 * Each wait is bounded (60 s) only so that a broken budget fails. */
#include <xray/xray_budget.h>
#include <xray/xray_log_interface.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNTRACED __attribute__((xray_never_instrument))

UNTRACED static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

UNTRACED static struct XRayBudgetStatus status(void) {
  struct XRayBudgetStatus st;
  __xray_budget_status(&st);
  return st;
}

UNTRACED static void *load(const char *path) {
  void *h = dlopen(path, RTLD_NOW);
  if (h == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    exit(2);
  }
  return h;
}

/* Calls the plugin's hot function until `culled` functions are culled. */
UNTRACED static void until_culled(void *h, unsigned long culled) {
  void (*hot)(unsigned) = (void (*)(unsigned))dlsym(h, "plugin_hot");
  double start = seconds();
  for (unsigned i = 1;; i++) {
    hot(i);
    if (i % 100000 == 0) {
      if (status().culled >= culled)
        return;
      if (seconds() - start > 60) {
        fprintf(stderr, "gave up waiting for the cull\n");
        exit(3);
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  void *h = load(argv[1]);
  until_culled(h, 1);
  struct XRayBudgetStatus st = status();
  printf("loaded: culled %llu\n", (unsigned long long)st.culled);
  unsigned long long functions = st.functions;
  dlclose(h);
  double start = seconds();
  while ((st = status()).functions >= functions) /* the next evaluation */
    if (seconds() - start > 60) {
      fprintf(stderr, "gave up waiting for the budget to forget the plugin\n");
      return 3;
    }
  printf("unloaded: culled %llu, %llu functions fewer\n", (unsigned long long)st.culled,
         functions - (unsigned long long)st.functions);
  h = load(argv[1]);
  until_culled(h, 1);
  printf("loaded again: culled %llu\n", (unsigned long long)status().culled);
  /* written now, while the plugin is loaded (at exit its destructor may
   * run first: under TSan it does) */
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED || __xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 2;
  return 0;
}
