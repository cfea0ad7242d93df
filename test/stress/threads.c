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

#include <glob.h>

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

/* Sum of the call counts of records whose leaf is `id` in a profiling file
 * (xray-abi.md 5.5: header 32 B; blocks {u32 size, u32 number, u64 tid}
 * then records {i32 ids leaf->root, i32 0, u64 count, u64 time}). */
NOINST static long profile_calls(const char *path, int32_t id, int *blocks) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL, "open %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)size);
  CHECK(fread(b, 1, (size_t)size, f) == (size_t)size, "read %s", path);
  fclose(f);
  long calls = 0, off = 32;
  *blocks = 0;
  while (off < size) {
    uint32_t bsize;
    memcpy(&bsize, b + off, 4);
    CHECK(bsize >= 16 && off + bsize <= size, "block size %u at %ld", bsize, off);
    long p = off + 16, end = off + bsize;
    while (p < end) {
      int32_t leaf, v;
      memcpy(&leaf, b + p, 4);
      do {
        CHECK(p + 4 <= end, "record runs past its block");
        memcpy(&v, b + p, 4);
        p += 4;
      } while (v != 0);
      CHECK(p + 16 <= end, "record counters past the block");
      uint64_t count;
      memcpy(&count, b + p, 8);
      p += 16;
      if (leaf == id)
        calls += (long)count;
    }
    off = end;
    (*blocks)++;
  }
  free(b);
  return calls;
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
    glob_t g;
    CHECK(glob("churn-xray-profiling-*", 0, NULL, &g) == 0, "no profiling file");
    int blocks = 0;
    long n = -1;
    for (size_t i = 0; i < g.gl_pathc; i++)
      if (strchr(g.gl_pathv[i] + strlen("churn-xray-profiling-"), '.') ==
          strrchr(g.gl_pathv[i], '.')) /* not a .folded/.txt sibling */
        n = profile_calls(g.gl_pathv[i], stress_id_of(work), &blocks);
    globfree(&g);
    printf("profile: %ld calls of work in %d blocks\n", n, blocks);
    CHECK(n == (long)THREADS * CALLS, "profile has %ld calls of work, want %ld", n,
          (long)THREADS * CALLS);
  }
  return 0;
}
