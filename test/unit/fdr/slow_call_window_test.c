/* A signal handler landing in the slow-call watch's guarded section
 * (fdr_slow_call.c), hit exactly: this program compiles fdr_slow_call.c
 * again with XR_FDR_TEST_POINTS, and a test point runs what a signal handler
 * landing there would run: a call whose entry can take the fast path and
 * whose exit cannot (its thread moved to another CPU). The handler's call
 * must be dropped as a pair, entry and exit: a split pair leaves an entry
 * whose exit the log writer makes up, and an odd nested count. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/handlers.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_controller.h"
#include "fdr/fdr_records.h"
#include "xray/xray_log_interface.h"

extern void (*xr_fdr_test_watch_head)(void);
extern void (*xr_fdr_test_watch_tail)(void);

static uint8_t trace[1 << 16];
static size_t trace_len;
static void collect(const char *mode, XRayBuffer b) {
  (void)mode;
  assert_true(trace_len + b.Size <= sizeof trace);
  memcpy(trace + trace_len, b.Data, b.Size);
  trace_len += b.Size;
}

/* The function records' ids in buffer order; returns how many. */
static size_t record_ids(int32_t *ids, size_t cap) {
  size_t n = 0, off = 32; /* file header */
  while (off < trace_len) {
    if (!(trace[off] & 1)) {
      assert_true(n < cap);
      ids[n++] = (int32_t)(xr_fdr_get32(trace + off) >> 4);
      off += 8;
    } else {
      off += 16; /* every metadata record is 16 bytes */
    }
  }
  return n;
}

static void migrating_handler_events(void) {
  xr_fdr_test_watch_head = NULL; /* once */
  xr_fdr_test_watch_tail = NULL;
  xr_fdr_thread.cpu = (uint32_t)sched_getcpu(); /* the fast path's CPU */
  xr_fdr_handle_arg0(2, ENTRY);
  xr_fdr_thread.cpu ^= 0x8000; /* the thread moved */
  xr_fdr_handle_arg0(2, EXIT);
}

/* Function 1 is watched; the handler runs at `point` in the watch of 1's
 * entry. Only 1's records may be in the buffer, and both of the handler's
 * events counted as nested. */
static void watch_drops_pairs(void (**point)(void)) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0 "
                                        "no_file_flush=true buffer_size=4096 buffer_max=2 "
                                        "snapshot_if_slower_than_us=60000000 "
                                        "snapshot_function=1"),
                   XRAY_LOG_INITIALIZED);
  *point = migrating_handler_events;
  xr_fdr_handle_arg0_watch(1, ENTRY);
  assert_null(*point); /* the window was reached */
  xr_fdr_handle_arg0_watch(1, EXIT);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  uint64_t nested = xr_fdr_writers_nested();
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  int32_t ids[8] = {0};
  size_t n = record_ids(ids, 8);
  assert_int_equal(n, 2); /* enter 1, exit 1: none of the handler's */
  assert_int_equal(ids[0], 1);
  assert_int_equal(ids[1], 1);
  assert_int_equal(nested, 2); /* its entry and its exit */
}

static void watch_start_drops_pairs(void **state) {
  (void)state;
  watch_drops_pairs(&xr_fdr_test_watch_head);
}

static void watch_end_drops_pairs(void **state) {
  (void)state;
  watch_drops_pairs(&xr_fdr_test_watch_tail);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(watch_start_drops_pairs),
      cmocka_unit_test(watch_end_drops_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
