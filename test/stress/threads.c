/* Thread churn: 500 short-lived threads (waves of 10), each making exactly
 * 200 instrumented calls, with a user handler or in a built-in mode.
 *
 * Exact counts: the user handler sees every event; the script counts the
 * basic and FDR records with llvm-xray (FDR gets more buffers than
 * threads, so its flight recorder keeps everything); for profiling this
 * program sums the call counts of the work function in the file it wrote.
 * Memory: VmHWM after all 500 threads may exceed VmHWM after the first 50
 * by at most argv[2] kB (-1: not checked; the script states the limit per
 * mode): per-thread
 * state must be recycled or released, not kept per thread. */
#include "stress.h"


enum { THREADS = 500, WAVE = 10, CALLS = 200, WARMUP = 50 };

WORK int work(int x) { return x * 11 + 7; }

static long handler_events;
NOINST static void on_event(int32_t id, XRayEntryType t) {
  (void)id;
  (void)t;
  __atomic_add_fetch(&handler_events, 1, __ATOMIC_RELAXED);
}

NOINST static void *short_lived(void *arg) {
  (void)arg;
  for (int i = 0; i < CALLS; i++)
    CHECK(work(i) == i * 11 + 7, "work");
  return NULL;
}

NOINST static void run_threads(int n) {
  for (int done = 0; done < n; done += WAVE) {
    pthread_t t[WAVE];
    for (int i = 0; i < WAVE; i++)
      CHECK(pthread_create(&t[i], NULL, short_lived, NULL) == 0, "create");
    for (int i = 0; i < WAVE; i++)
      pthread_join(t[i], NULL);
  }
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s handler|MODE HWM_LIMIT_KB", argv[0]);
  const char *mode = argv[1];
  const long limit_kb = atol(argv[2]);
  const bool handler = !stress_is_mode(mode);
  if (handler)
    CHECK(__xray_set_handler(on_event) == 1, "set_handler");
  const char *cfg = getenv("XRAY_STRESS_CONFIG");
  stress_start_mode(mode, cfg ? cfg : stress_default_config(mode));
  CHECK(__xray_patch() == SUCCESS, "patch");

  run_threads(WARMUP);
  const long hwm0 = stress_vm_hwm_kb();
  run_threads(THREADS - WARMUP);
  const long hwm1 = stress_vm_hwm_kb();
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  stress_stop_mode(mode);

  printf("threads=%d calls=%ld work_id=%d hwm_growth_kb=%ld (after warm-up %ld kB, limit %ld kB)\n",
         THREADS, (long)THREADS * CALLS, stress_id_of(work), hwm1 - hwm0, hwm0,
         limit_kb);
  CHECK(limit_kb < 0 || hwm1 - hwm0 <= limit_kb, "VmHWM grew by %ld kB over %d threads (limit %ld kB)",
        hwm1 - hwm0, THREADS - WARMUP, limit_kb);
  if (handler)
    CHECK(handler_events == 2L * THREADS * CALLS, "handler events %ld", handler_events);
  if (strcmp(mode, "xray-profiling") == 0) {
    char *path = stress_find_profile("churn-xray-profiling-");
    CHECK(path != NULL, "no profiling file");
    int blocks = 0;
    long n = stress_profile_calls(path, stress_id_of(work), &blocks);
    free(path);
    printf("profile: %ld calls of work in %d blocks\n", n, blocks);
    CHECK(n == (long)THREADS * CALLS, "profile has %ld calls of work, want %ld", n,
          (long)THREADS * CALLS);
  }
  return 0;
}
