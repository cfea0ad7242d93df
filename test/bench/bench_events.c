/* The event sleds' driver: like bench_main.c (same output lines, same
 * blocks), for custom and typed events.
 *
 * Usage: bench_events SCENARIO CALLS
 *   events      __xray_patch, a user custom-event handler and a typed-event
 *               handler that each count an event of the right size (and
 *               type); CALLS events of each kind: event-custom,
 *               event-typed (ns/event). BENCH_NO_AVX512=1: ours takes the
 *               ymm path on an AVX-512 machine, as in bench_main.c
 *   fdr-events  FDR mode (buffers for every event) recording CALLS custom
 *               events of 16 bytes: fdr-custom (ns/event). Typed events
 *               are not compared in FDR: compiler-rt 14 counts no typed
 *               event's marker in its buffer length, so its log does not
 *               read back (docs/fdr-mode.md).
 * Not instrumented itself; the loops are bench_events_fn.c's.
 * SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_driver.h"
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define WARMUP 1000L
#define BLOCKS 64

long bench_custom_loop(long n);
long bench_typed_loop(long n);

/* The timed loops, named timed_* for callgrind's --toggle-collect. */
#define TIMED __attribute__((noinline, aligned(64)))
TIMED long timed_custom(long n) { return bench_custom_loop(n); }
TIMED long timed_typed(long n) { return bench_typed_loop(n); }

static long custom_seen, typed_seen;
static void custom_handler(void *data, size_t size) {
  custom_seen += data != NULL && size == 16;
}
static void typed_handler(uint16_t type, const void *data, size_t size) {
  typed_seen += type == 7 && data != NULL && size == 16;
}

static void expect_seen(const char *what, long seen, long want) {
  if (seen != want) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s handler saw %ld events, expected %ld", what,
             seen, want);
    fail(msg);
  }
}

/* Ours only, as in bench_main.c: BENCH_NO_AVX512=1 makes the handler
 * installs take the path of CPUs without AVX-512 (ymm). */
extern uint8_t xr_vector_avx512 __attribute__((weak));

static void scenario_events(long n) {
  if (getenv("BENCH_NO_AVX512") && &xr_vector_avx512)
    xr_vector_avx512 = 0;
  if (__xray_patch() != SUCCESS)
    fail("patch");
  if (!__xray_set_customevent_handler(custom_handler) ||
      !__xray_set_typedevent_handler(typed_handler))
    fail("set event handlers");
  long custom, typed;
  timed_custom(WARMUP);
  double ns_custom = fastest_block(timed_custom, n, BLOCKS, &custom);
  timed_typed(WARMUP);
  double ns_typed = fastest_block(timed_typed, n, BLOCKS, &typed);
  __xray_remove_customevent_handler();
  __xray_remove_typedevent_handler();
  __xray_unpatch();
  expect_seen("custom", custom_seen, custom + WARMUP);
  expect_seen("typed", typed_seen, typed + WARMUP);
  printf("M event-custom %.3f ns/event\n", ns_custom);
  printf("M event-typed %.3f ns/event\n", ns_typed);
}

/* FDR as bench_main.c starts it, with buffers for every event (32 bytes
 * each: the 16-byte record and the payload). */
static void scenario_fdr_events(long n) {
  char cfg[256];
  long buffer_size = 1L << 20;
  long bytes = 32 * (n + WARMUP) + (4L << 20);
  snprintf(cfg, sizeof cfg,
           "func_duration_threshold_us=0:buffer_size=%ld:buffer_max=%ld",
           buffer_size, bytes / buffer_size + 8);
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode("xray-fdr", cfg) != XRAY_LOG_INITIALIZED) {
    fail("start xray-fdr");
    return;
  }
  if (__xray_patch() != SUCCESS)
    fail("patch");
  long events;
  timed_custom(WARMUP);
  double ns = fastest_block(timed_custom, n, BLOCKS, &events);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    fail("finalize");
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    fail("flush");
  __xray_unpatch();
  /* the loop function's own calls: the warm-up and one per block */
  printf("E enter %d\nE exit %d\n", BLOCKS + 1, BLOCKS + 1);
  printf("E custom %ld\n", events + WARMUP);
  printf("M fdr-custom %.3f ns/event\n", ns);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SCENARIO CALLS\n", argv[0]);
    return 2;
  }
  long n = atol(argv[2]);
  if (n < BLOCKS) {
    fprintf(stderr, "CALLS must be >= %d\n", BLOCKS);
    return 2;
  }
  if (!strcmp(argv[1], "events"))
    scenario_events(n);
  else if (!strcmp(argv[1], "fdr-events"))
    scenario_fdr_events(n);
  else {
    fprintf(stderr, "unknown scenario %s\n", argv[1]);
    return 2;
  }
  if (!failures)
    printf("C ok\n");
  fflush(stdout);
  return failures ? 1 : 0;
}
