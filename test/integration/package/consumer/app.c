/* A tiny instrumented program, built by the package tests the way a user
 * would build theirs (CMake package, pkg-config, add_subdirectory).
 *
 * `app count`: installs its own handler, patches, runs the work and prints
 * how many times each function was entered and left (exact numbers).
 * `app version`: the runtime's version, as the archive (__xray_runtime_version)
 * and the headers (XRAY_RUNTIME_VERSION) say it; each way of building finds
 * the generated <xray/xray_version.h>.
 * `app`: just runs the work, so a mode chosen by XRAY_OPTIONS can trace it. */
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_version.h>

/* Always instrumented: the consumer builds with the default instruction
 * threshold, which would leave these small functions without sleds. */
#define TRACED __attribute__((xray_always_instrument, noinline))

enum { MAX_IDS = 64 };
static int entered[MAX_IDS];
static int left[MAX_IDS];

__attribute__((xray_never_instrument)) static void
count_event(int32_t id, XRayEntryType type) {
  if (id <= 0 || id >= MAX_IDS)
    return;
  if (type == ENTRY || type == LOG_ARGS_ENTRY)
    entered[id]++;
  else
    left[id]++;
}

TRACED int leaf(int x) { return x * 3 + 1; }

TRACED int middle(int n) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum += leaf(i);
  return sum;
}

TRACED int top(void) { return middle(10) + middle(5); }

__attribute__((xray_never_instrument)) static int id_of(void *fn) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int)id;
  return 0;
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "version") == 0) {
    printf("%s %s\n", __xray_runtime_version(), XRAY_RUNTIME_VERSION);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "count") == 0) {
    if (!__xray_set_handler(count_event)) {
      printf("no runtime: __xray_set_handler failed\n");
      return 1;
    }
    if (__xray_patch() != SUCCESS) {
      printf("patching failed\n");
      return 1;
    }
    int result = top();
    __xray_unpatch();
    __xray_remove_handler();
    int l = id_of((void *)leaf), m = id_of((void *)middle), t = id_of((void *)top);
    printf("result=%d functions=%zu\n", result, __xray_max_function_id());
    printf("leaf=%d/%d middle=%d/%d top=%d/%d\n", entered[l], left[l],
           entered[m], left[m], entered[t], left[t]);
    return 0;
  }
  printf("result=%d\n", top());
  return 0;
}
