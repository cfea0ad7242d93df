/* Live patching under load: two threads call instrumented functions without
 * pause while a third patches and unpatches everything, single functions and
 * bad ids, for argv[2] milliseconds. Then, with the patcher stopped, an exact
 * phase: everything patched, each worker makes exactly N calls, and the
 * per-function event counts must be exact.
 *
 * argv[1]: "handler" (user entry/exit + arg1 handlers) or a built-in mode;
 * argv[3] "exact": the exact phase only (for modes, run by the script in a
 * second process so its file holds nothing else: the script checks its
 * counts with llvm-xray; for profiling this program reads the file whose
 * name starts with $STRESS_PROFILE_PREFIX).
 * Checks: every result computed by the workload is right (a torn sled would
 * crash or corrupt it); every event a user handler sees has a valid id and
 * type; patch statuses are SUCCESS (FAILED for the bad ids); exact counts in
 * the handler phase. Modes write their files; the script reads them with
 * llvm-xray. */
#include "stress.h"

#include <stdatomic.h>

WORK int leaf(int x) { return x * 7 + 3; }
WORK int middle(int x) { return leaf(x) ^ leaf(x + 1); }
WORK int tail_caller(int x) { return middle(x + 2); }
__attribute__((xray_log_args(1))) WORK int logged(int x) {
  return tail_caller(x) + 1;
}
NOINST static int expected(int x) {
  int y = x + 2;
  return ((y * 7 + 3) ^ ((y + 1) * 7 + 3)) + 1;
}

enum { MAX_IDS = 64 };
/* Calls per worker in the exact phase (fewer in modes: FDR keeps all of
 * them in its default 1.6 MB of buffers). */
static int exact_calls = 20000;
static atomic_long enters[MAX_IDS], exits[MAX_IDS], arg_calls, bad_events;
static int32_t max_id;

NOINST static void count(int32_t id, XRayEntryType type) {
  if (id < 1 || id > max_id || id >= MAX_IDS || type > LOG_ARGS_ENTRY) {
    atomic_fetch_add(&bad_events, 1);
    return;
  }
  if (type == ENTRY || type == LOG_ARGS_ENTRY)
    atomic_fetch_add_explicit(&enters[id], 1, memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&exits[id], 1, memory_order_relaxed);
}
NOINST static void on_event(int32_t id, XRayEntryType type) { count(id, type); }
NOINST static void on_arg(int32_t id, XRayEntryType type, uint64_t arg) {
  count(id, type);
  if (arg >= (1u << 30))
    atomic_fetch_add(&bad_events, 1);
  atomic_fetch_add_explicit(&arg_calls, 1, memory_order_relaxed);
}

static atomic_bool stop_workers, stop_patcher;
static atomic_uint patch_rounds; /* the patcher's finished rounds */
/* Uninstrumented spin between churn calls: basic mode writes every call,
 * and an unpaced churn would write hundreds of MB. */
static int pace;
static atomic_long total_calls;

NOINST static void *worker(void *arg) {
  const int exact = (int)(intptr_t)arg;
  long calls = 0;
  for (int i = 0; exact ? i < exact_calls : !atomic_load(&stop_workers); i++) {
    int x = i & 0xffff;
    int r = logged(x);
    CHECK(r == expected(x), "logged(%d) = %d, expected %d", x, r, expected(x));
    calls++;
    if (!exact)
      for (volatile int k = 0; k < pace; k++) {
      }
  }
  atomic_fetch_add(&total_calls, calls);
  return NULL;
}

NOINST static void *patcher(void *arg) {
  (void)arg;
  unsigned rounds = 0;
  while (!atomic_load(&stop_patcher)) {
    XRayPatchingStatus s = __xray_patch();
    CHECK(s == SUCCESS, "__xray_patch: %d", (int)s);
    s = __xray_unpatch();
    CHECK(s == SUCCESS, "__xray_unpatch: %d", (int)s);
    for (int32_t id = 1; id <= max_id; id++) {
      s = __xray_patch_function(id);
      CHECK(s == SUCCESS, "__xray_patch_function(%d): %d", id, (int)s);
    }
    for (int32_t id = max_id; id >= 1; id--) {
      s = __xray_unpatch_function(id);
      CHECK(s == SUCCESS, "__xray_unpatch_function(%d): %d", id, (int)s);
      s = __xray_patch_function(id);
      CHECK(s == SUCCESS, "__xray_patch_function(%d): %d", id, (int)s);
    }
    s = __xray_patch_function(max_id + 1);
    CHECK(s == FAILED, "__xray_patch_function(max + 1): %d", (int)s);
    s = __xray_unpatch_function(0);
    CHECK(s == FAILED, "__xray_unpatch_function(0): %d", (int)s);
    s = __xray_unpatch();
    CHECK(s == SUCCESS, "__xray_unpatch: %d", (int)s);
    rounds++;
    atomic_store(&patch_rounds, rounds);
  }
  return (void *)(uintptr_t)rounds;
}

int main(int argc, char **argv) {
  CHECK(argc == 3 || argc == 4, "usage: %s MODE MILLISECONDS [exact]", argv[0]);
  const bool exact_only = argc == 4 && strcmp(argv[3], "exact") == 0;
  const char *mode = argv[1];
  const uint64_t ms = strtoull(argv[2], NULL, 10);
  max_id = (int32_t)__xray_max_function_id();
  CHECK(max_id >= 4 && max_id < MAX_IDS, "max function id %d", max_id);
  const bool handler = !stress_is_mode(mode);
  if (handler) {
    CHECK(__xray_set_handler(on_event) == 1, "set_handler");
    CHECK(__xray_set_handler_arg1(on_arg) == 1, "set_handler_arg1");
  }
  stress_start_mode(mode, stress_default_config(mode));
  if (!handler)
    exact_calls = 5000;
  if (strcmp(mode, "xray-basic") == 0)
    pace = 10000;
  pthread_t w[2], p;
  if (exact_only)
    goto exact;

  /* Phase 1: churn. */
  for (int i = 0; i < 2; i++)
    pthread_create(&w[i], NULL, worker, (void *)0);
  pthread_create(&p, NULL, patcher, NULL);
  /* The churn lasts ms and at least one whole patch round, however late a
   * loaded machine first runs the patcher. */
  const uint64_t end = stress_now_ms() + ms;
  while (stress_now_ms() < end || atomic_load(&patch_rounds) == 0)
    USE(leaf(1)); /* the main thread runs instrumented code too */
  atomic_store(&stop_patcher, true);
  void *rounds;
  pthread_join(p, &rounds);
  atomic_store(&stop_workers, true);
  for (int i = 0; i < 2; i++)
    pthread_join(w[i], NULL);
  CHECK((uintptr_t)rounds > 0, "the patcher never finished a round");
  CHECK(atomic_load(&bad_events) == 0, "%ld bad events",
        atomic_load(&bad_events));
  printf("churn: %lu patch rounds, %ld calls\n", (unsigned long)(uintptr_t)rounds,
         atomic_load(&total_calls));

  if (!handler) {
    stress_stop_mode(mode);
    printf("done\n");
    return 0;
  }

exact:
  /* Phase 2: exact counts with everything patched. */
  CHECK(__xray_patch() == SUCCESS, "patch");
  for (int i = 0; i < MAX_IDS; i++) {
    atomic_store(&enters[i], 0);
    atomic_store(&exits[i], 0);
  }
  atomic_store(&arg_calls, 0);
  for (int i = 0; i < 2; i++)
    pthread_create(&w[i], NULL, worker, (void *)1);
  for (int i = 0; i < 2; i++)
    pthread_join(w[i], NULL);
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  /* Unpatched: these calls must not be seen. */
  for (int i = 0; i < 100; i++)
    USE(logged(i));
  const int32_t ids[] = {stress_id_of(leaf), stress_id_of(middle),
                         stress_id_of(tail_caller), stress_id_of(logged)};
  const long per_call[] = {2, 1, 1, 1};
  printf("exact ids: %d %d %d %d calls per worker: %d\n", ids[0], ids[1], ids[2],
         ids[3], exact_calls);
  if (handler) {
    for (int i = 0; i < 4; i++) {
      CHECK(ids[i] > 0, "no id for function %d", i);
      long want = per_call[i] * 2 * exact_calls;
      CHECK(atomic_load(&enters[ids[i]]) == want, "function %d: %ld entries, want %ld",
            i, atomic_load(&enters[ids[i]]), want);
      CHECK(atomic_load(&exits[ids[i]]) == want, "function %d: %ld exits, want %ld",
            i, atomic_load(&exits[ids[i]]), want);
    }
    CHECK(atomic_load(&arg_calls) == 2 * exact_calls, "arg1 calls %ld",
          atomic_load(&arg_calls));
    CHECK(atomic_load(&bad_events) == 0, "%ld bad events", atomic_load(&bad_events));
    printf("exact: ok\n");
  }
  stress_stop_mode(mode);
  if (strcmp(mode, "xray-profiling") == 0 && getenv("STRESS_PROFILE_PREFIX")) {
    char *path = stress_find_profile(getenv("STRESS_PROFILE_PREFIX"));
    CHECK(path != NULL, "no profiling file");
    for (int i = 0; i < 4; i++) {
      int blocks;
      long n = stress_profile_calls(path, ids[i], &blocks);
      CHECK(n == per_call[i] * 2 * exact_calls, "profile: function %d has %ld calls, want %ld",
            i, n, per_call[i] * 2 * exact_calls);
    }
    free(path);
    printf("exact: ok\n");
  }
  printf("done\n");
  return 0;
}
