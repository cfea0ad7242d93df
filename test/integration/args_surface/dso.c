/* Argument capture and shared objects loaded later (args_surface.dso):
 * the SPEC in effect reaches an object when it registers (its plans built
 * before its first patching, patch_premain patches it), its values arrive
 * exactly, its functions count in the patterns' matches while it is
 * loaded, and again when it is loaded anew. argv[1]: the plugin's path;
 * argv[2] "map": this program has its own functions (the SPEC set from
 * code, before the load); "nomap": a host without an instrumentation map,
 * where XRAY_OPTIONS' xray_args comes into effect at the first object's
 * registration. Prints what it saw; the script compares. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "args/args_set.h"
#include "core/modes/args_sink.h"
#include "xray/xray_args.h"

static char seen[512];

__attribute__((xray_never_instrument)) static void add(const char *what, const struct xr_arg_call *c) {
  size_t at = strlen(seen);
  at += (size_t)snprintf(seen + at, sizeof seen - at, " %s", what);
  for (int i = 0; i < c->count; i++) {
    char name[8];
    const struct xr_arg_value *v = &c->v[i];
    at += (size_t)snprintf(seen + at, sizeof seen - at, " %s=%llx", xr_arg_name(v->what, name),
                           (unsigned long long)v->bits);
    if (v->format == XR_ARGF_S)
      at += (size_t)snprintf(seen + at, sizeof seen - at, ":%.*s", v->len, c->text + v->text);
  }
}
__attribute__((xray_never_instrument)) static void on_entry(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  (void)id;
  (void)sp;
  add("entry", c);
}
__attribute__((xray_never_instrument)) static void on_exit_(int32_t id, const struct xr_arg_call *c, uintptr_t sp) {
  (void)id;
  (void)sp;
  add("exit", c);
}
static const struct xr_args_sink sink = {on_entry, on_exit_};

__attribute__((xray_never_instrument)) static void matches_line(void *ctx, const char *text, size_t matched) {
  (void)ctx;
  printf(" %zu %s", matched, text);
}
__attribute__((xray_never_instrument)) static void matches(const char *when) {
  printf("%s:", when);
  xr_args_each_pattern(matches_line, NULL);
  printf("\n");
}

__attribute__((xray_never_instrument)) static void call(void *so) {
  long (*fn)(long, const char *) = (long (*)(long, const char *))dlsym(so, "plugin_fn");
  seen[0] = '\0';
  volatile long r = fn(42, "plug");
  (void)r;
  printf("values:%s\n", seen);
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  xr_args_sink_set(&sink);
  if (strcmp(argv[2], "map") == 0 &&
      __xray_args_set("plugin_*@arg1,arg2/s;plugin_fn@retval/x") != XRAY_ARGS_OK)
    return 1;
  for (int round = 1; round <= 2; round++) {
    void *so = dlopen(argv[1], RTLD_NOW);
    if (so == NULL) {
      fprintf(stderr, "dso: %s\n", dlerror());
      return 1;
    }
    matches("loaded");
    call(so);
    dlclose(so);
    matches("unloaded");
  }
  return 0;
}
