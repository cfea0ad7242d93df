/* Live retargeting: two threads call f_target (and f_other, which never
 * has bits) at least 10^6 times each while a third changes f_target's want
 * bits (entry and exit, none, entry only, exit only, ...), at least 1,000
 * times and until both threads are done, so the two overlap wholly.
 * Every call returns exactly what it should; every event the hook records
 * carries exactly the registers of its call (its arguments are
 * self-checking: b = ~a, x = (double)a; its result encodes a check byte);
 * f_other's events reach the usual handler exactly twice per call. Events
 * of f_target made while its sled is being rewritten are skipped (the sled
 * is off meanwhile), so only their kinds are checked: both the hook and
 * the usual handler saw some. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>

#include "core/dispatch/hot_tables.h" /* runtime-internal: xr_args_hook */
#include "core/patch/patch_api.h"     /* xr_patch_set_args */

#define NOX __attribute__((xray_never_instrument, noinline))
#define FN __attribute__((xray_always_instrument, noinline))
#define CALLS 1000000
#define TOGGLES 1000

static long expected(long a) { return a << 8 | ((a * 7) & 0xff); }
FN long f_target(long a, long b, double x) {
  return b == ~a && x == (double)a ? expected(a) : -1;
}
FN long f_other(long a) { return a + 1; }

static int32_t target_id, other_id;
static uint64_t hook_entries, hook_exits, hook_bad, usual_target, usual_other, usual_bad;
static uint64_t wrong_results, calls_made;
static int running, workers_done, toggles_made;

NOX static void hook(int32_t id, int type, const struct xr_arg_regs *r) {
  long a = (long)r->gpr[0];
  double x;
  memcpy(&x, &r->fpr[0], 8);
  int ok = id == target_id &&
           (type == XR_T_ENTRY ? r->gpr[1] == ~r->gpr[0] && x == (double)a
                               : type == XR_T_EXIT && expected(a >> 8) == a);
  __atomic_fetch_add(ok ? (type == XR_T_ENTRY ? &hook_entries : &hook_exits) : &hook_bad, 1,
                     __ATOMIC_RELAXED);
}

NOX static void usual(int32_t id, XRayEntryType type) {
  (void)type;
  __atomic_fetch_add(id == target_id ? &usual_target : id == other_id ? &usual_other : &usual_bad,
                     1, __ATOMIC_RELAXED);
}

static long (*volatile target)(long, long, double) = f_target;
static long (*volatile other)(long) = f_other;

NOX static void *worker(void *arg) {
  long base = (long)(intptr_t)arg << 32, wrong = 0, n = 0;
  while (!__atomic_load_n(&running, __ATOMIC_ACQUIRE)) {
  }
  for (; n < CALLS || __atomic_load_n(&toggles_made, __ATOMIC_ACQUIRE) < TOGGLES; n++) {
    long a = base | (n & 0xffffff);
    wrong += target(a, ~a, (double)a) != expected(a);
    wrong += other(n) != n + 1;
  }
  __atomic_fetch_add(&wrong_results, (uint64_t)wrong, __ATOMIC_RELAXED);
  __atomic_fetch_add(&calls_made, (uint64_t)n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&workers_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

NOX static int32_t id_of(void *fn) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int32_t)id;
  exit(2);
}

NOX int main(void) {
  target_id = id_of((void *)f_target);
  other_id = id_of((void *)f_other);
  size_t count = __xray_max_function_id();
  uint8_t *want = calloc(count, 1);
  xr_args_hook = hook;
  __xray_set_handler(usual);
  if (__xray_patch() != SUCCESS)
    return 2;
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
  __atomic_store_n(&running, 1, __ATOMIC_RELEASE);
  static const uint8_t cycle[4] = {XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT, 0, XR_ARGS_AT_ENTRY,
                                   XR_ARGS_AT_EXIT};
  int failed = 0, k;
  for (k = 0; k < TOGGLES || __atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) < 2; k++) {
    want[target_id - 1] = cycle[k % 4];
    failed += xr_patch_set_args(0, want, count) != SUCCESS;
    __atomic_store_n(&toggles_made, k + 1, __ATOMIC_RELEASE);
  }
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  __xray_unpatch();
  free(want);
  printf("set_args failures: %d\n", failed);
  printf("wrong results: %llu\n", (unsigned long long)wrong_results);
  printf("bad hook records: %llu\n", (unsigned long long)hook_bad);
  printf("f_other's events: %s\n", usual_other == 2 * calls_made ? "exact" : "WRONG");
  printf("other ids at the usual handler: %llu\n", (unsigned long long)usual_bad);
  printf("f_target's events at the hook: %s, at the usual handler: %s\n",
         hook_entries && hook_exits ? "yes" : "NO", usual_target ? "yes" : "NO");
  fprintf(stderr, "toggles %d, calls %llu, hook %llu+%llu, usual %llu\n", k,
          (unsigned long long)calls_made,
          (unsigned long long)hook_entries, (unsigned long long)hook_exits,
          (unsigned long long)usual_target);
  return 0;
}
