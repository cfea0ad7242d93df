/* Patch-all and unpatch-all of a program with many instrumented functions.
 *
 * Usage: bench_patch   (links with the generated many.o: many_table[],
 * many_count). Prints, in ms:
 *   M patch     the first __xray_patch() of the process (it also pays the
 *               copy-on-write faults of every text page it writes);
 *   M repatch   the fastest of the REPEATS - 1 later __xray_patch() calls;
 *   M unpatch   the fastest of REPEATS __xray_unpatch() calls.
 * Checks that the first patch really routed every function to the handler,
 * that no mapping is left writable and executable, and that the last unpatch
 * really stopped every function.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"
#include "xray/xray_interface.h"

extern int (*const many_table[])(int);
extern const int many_count;

#define REPEATS 16

static long handler_events;
static void counting_handler(int32_t id, XRayEntryType type) {
  (void)id;
  (void)type;
  handler_events++;
}

/* Named timed_* for callgrind's --toggle-collect. */
__attribute__((noinline)) int timed_patch(void) { return __xray_patch(); }
__attribute__((noinline)) int timed_unpatch(void) { return __xray_unpatch(); }

static long call_all(void) {
  long s = 0;
  for (int i = 0; i < many_count; i++)
    s += many_table[i](i);
  return s;
}

/* Counts mappings that are writable and executable at once. */
static int wx_mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    char perms[8];
    if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' &&
        perms[2] == 'x')
      n++;
  }
  fclose(f);
  return n;
}

int main(void) {
  int failures = 0;
  if (__xray_max_function_id() < (size_t)many_count) {
    printf("F max_function_id %zu < %d\n", __xray_max_function_id(),
           many_count);
    return 1;
  }
  double t0 = now_ns();
  int p = timed_patch();
  double t1 = now_ns();
  double first_patch = t1 - t0, best_repatch = 1e300, best_unpatch = 1e300;
  int wx_after_patch = wx_mappings();
  __xray_set_handler(counting_handler);
  call_all();
  long patched_events = handler_events;
  __xray_remove_handler();
  int u = SUCCESS;
  for (int r = 0; r < REPEATS; r++) {
    if (r > 0) {
      t0 = now_ns();
      if (timed_patch() != SUCCESS)
        p = FAILED;
      t1 = now_ns();
      if (t1 - t0 < best_repatch)
        best_repatch = t1 - t0;
    }
    t0 = now_ns();
    if (timed_unpatch() != SUCCESS)
      u = FAILED;
    t1 = now_ns();
    if (t1 - t0 < best_unpatch)
      best_unpatch = t1 - t0;
  }
  __xray_set_handler(counting_handler);
  call_all();
  __xray_remove_handler();
  long unpatched_events = handler_events - patched_events;

  if (p != SUCCESS || u != SUCCESS) {
    printf("F patch returned %d, unpatch returned %d\n", p, u);
    failures++;
  }
  if (patched_events != 2L * many_count) {
    printf("F patched: handler saw %ld events, expected %ld\n", patched_events,
           2L * many_count);
    failures++;
  }
  if (unpatched_events != 0) {
    printf("F unpatched: handler saw %ld events, expected 0\n",
           unpatched_events);
    failures++;
  }
  if (wx_after_patch != 0) {
    printf("F %d writable+executable mappings after patch\n", wx_after_patch);
    failures++;
  }
  printf("M patch %.3f ms\nM repatch %.3f ms\nM unpatch %.3f ms\n",
         first_patch / 1e6, best_repatch / 1e6, best_unpatch / 1e6);
  if (!failures)
    printf("C ok\n");
  return failures ? 1 : 0;
}
