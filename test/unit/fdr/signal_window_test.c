/* Signal handlers landing in the controller's windows
 * (fdr_controller_lean.c), each hit exactly: this program compiles the
 * controller again with XR_TEST_POINTS, and a test point runs what a
 * signal handler landing there would run.
 *  - Between the fast path's clock read and its bail-out to the full path:
 *    the thread's records stay in time order.
 *  - Inside the full path (its guard held, at its start and at its end): the
 *    handler's call is dropped as a pair, entry and exit, even when its exit
 *    needs the full path (a CPU change, a full buffer) and its entry does
 *    not. A split pair would leave an entry whose exit the log writer makes
 *    up, and a nested count that is odd.
 *  - Inside the slow-call watch's guard (fdr_slow_call.c, compiled again
 *    here too): the same, for a handler landing at its start or its end.
 *  - Inside the argument sink's write (xr_fdr_handle_values, the same
 *    guard): the same, and the call with values stays whole. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/dispatch/handlers.h"
#include "core/modes/args_sink.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "xray/xray_log_interface.h"
#include "collected_trace.h"

extern void (*xr_fdr_test_bail_window)(void);
extern void (*xr_fdr_test_full_head)(void);
extern void (*xr_fdr_test_full_tail)(void);
extern void (*xr_fdr_test_watch_head)(void);
extern void (*xr_fdr_test_watch_tail)(void);

/* What a signal handler calling an instrumented function does. */
static void signal_handler_events(void) {
  xr_fdr_test_bail_window = NULL; /* once */
  xr_fdr_handle_arg0_no_sp(2, ENTRY);
  xr_fdr_handle_arg0_no_sp(2, EXIT);
}

/* Every function record's TSC in buffer order, as a reader rebuilds them
 * (NewCPUId and TSCWrap set it, each function record adds its delta);
 * returns how many, the ids in ids[]. */
static size_t stamps(uint64_t *tsc, int32_t *ids, size_t cap) {
  size_t n = 0, off = 32; /* file header */
  uint64_t now = 0;
  while (off < trace_len) {
    uint8_t b = trace[off];
    if (!(b & 1)) {
      uint32_t w = xr_fdr_get32(trace + off);
      now += xr_fdr_get32(trace + off + 4);
      assert_true(n < cap);
      ids[n] = (int32_t)(w >> 4);
      tsc[n++] = now;
      off += 8;
      continue;
    }
    unsigned kind = b >> 1;
    if (kind == XR_FDR_NEW_CPU)
      now = xr_fdr_get64(trace + off + 3);
    else if (kind == XR_FDR_TSC_WRAP)
      now = xr_fdr_get64(trace + off + 1);
    else if (kind == XR_FDR_CUSTOM_EVENT) /* and its payload */
      off += xr_fdr_get32(trace + off + 1);
    off += 16; /* extents, buffer, walltime, pid, cpu, wrap: all 16 bytes */
  }
  return n;
}

static void bail_window_keeps_time_order(void **state) {
  (void)state;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0 "
                                        "no_file_flush=true buffer_size=4096 buffer_max=2"),
                   XRAY_LOG_INITIALIZED);
  xr_fdr_handle_arg0_no_sp(1, ENTRY);
  /* The exit bails out of the fast path (a CPU change, say), and a signal
   * lands just after the bail-out. */
  xr_fdr_thread.cpu ^= 0x8000;
  xr_fdr_test_bail_window = signal_handler_events;
  xr_fdr_handle_arg0_no_sp(1, EXIT);
  assert_null(xr_fdr_test_bail_window); /* the window was reached */
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);

  uint64_t tsc[8] = {0};
  int32_t ids[8] = {0};
  size_t n = stamps(tsc, ids, 8);
  assert_int_equal(n, 4);
  assert_int_equal(ids[0], 1); /* enter 1 */
  assert_int_equal(ids[1], 2); /* the handler's enter 2, exit 2 */
  assert_int_equal(ids[2], 2);
  assert_int_equal(ids[3], 1); /* exit 1, after them in the buffer */
  for (size_t i = 1; i < n; i++)
    if (tsc[i] < tsc[i - 1])
      fail_msg("record %zu (id %d) at TSC %llu precedes record %zu's %llu", i,
               ids[i], (unsigned long long)tsc[i], i - 1,
               (unsigned long long)tsc[i - 1]);
}

/* A handler whose thread moves to another CPU between its call's entry and
 * exit: the entry can take the fast path, the exit cannot. */
static void migrating_handler_events(void) {
  xr_fdr_test_full_head = NULL; /* once */
  xr_fdr_test_full_tail = NULL;
  xr_fdr_test_watch_head = NULL;
  xr_fdr_test_watch_tail = NULL;
  xr_fdr_thread.cpu = (uint32_t)sched_getcpu(); /* the fast path's CPU */
  xr_fdr_handle_arg0_no_sp(2, ENTRY);
  xr_fdr_thread.cpu ^= 0x8000; /* the thread moved */
  xr_fdr_handle_arg0_no_sp(2, EXIT);
}

/* Calls 1 with the handler at the given test point: of the full path
 * (taken by the exit of 1, through a CPU change), or with `watch`, of the
 * slow-call watch of 1's entry (1 watched). Returns the records' ids in
 * ids[] and their number, the nested drops in *nested. */
static size_t full_path_window(void (**point)(void), bool watch, int32_t *ids,
                               uint64_t *nested) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", watch
                                        ? "func_duration_threshold_us=0 no_file_flush=true "
                                          "buffer_size=4096 buffer_max=2 "
                                          "snapshot_if_slower_than_us=60000000 "
                                          "snapshot_function=1"
                                        : "func_duration_threshold_us=0 no_file_flush=true "
                                          "buffer_size=4096 buffer_max=2"),
                   XRAY_LOG_INITIALIZED);
  if (watch) {
    *point = migrating_handler_events;
    xr_fdr_handle_arg0_watch_no_sp(1, ENTRY);
    assert_null(*point); /* the window was reached */
    xr_fdr_handle_arg0_watch_no_sp(1, EXIT);
  } else {
    xr_fdr_handle_arg0_no_sp(1, ENTRY);
    xr_fdr_thread.cpu ^= 0x8000; /* the exit takes the full path */
    *point = migrating_handler_events;
    xr_fdr_handle_arg0_no_sp(1, EXIT);
    assert_null(*point); /* the window was reached */
  }
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  *nested = xr_fdr_writers_nested();
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  uint64_t tsc[8];
  return stamps(tsc, ids, 8);
}

static void drops_pairs(void (**point)(void), bool watch) {
  int32_t ids[8] = {0};
  uint64_t nested = 0;
  size_t n = full_path_window(point, watch, ids, &nested);
  assert_int_equal(n, 2); /* enter 1, exit 1: none of the handler's */
  assert_int_equal(ids[0], 1);
  assert_int_equal(ids[1], 1);
  assert_int_equal(nested, 2); /* its entry and its exit */
}

static void full_path_start_drops_pairs(void **state) {
  (void)state;
  drops_pairs(&xr_fdr_test_full_head, false);
}

static void full_path_end_drops_pairs(void **state) {
  (void)state;
  drops_pairs(&xr_fdr_test_full_tail, false);
}

static void watch_start_drops_pairs(void **state) {
  (void)state;
  drops_pairs(&xr_fdr_test_watch_head, true);
}

static void watch_end_drops_pairs(void **state) {
  (void)state;
  drops_pairs(&xr_fdr_test_watch_tail, true);
}

/* A handler landing inside the sink's write of a call with values, at its
 * start or at its end: its call is dropped as a pair; the call with values
 * (entry, its CallArgument; exit, its event) is written whole. */
static void sink_drops_pairs(void (**point)(void)) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0 "
                                        "no_file_flush=true buffer_size=4096 buffer_max=2"),
                   XRAY_LOG_INITIALIZED);
  struct xr_arg_call c = {.count = 1}, r = {.count = 1};
  c.v[0] = (struct xr_arg_value){5, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, 0, 0, 0};
  r.v[0] = (struct xr_arg_value){6, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_D, 0, 0, 0};
  *point = migrating_handler_events;
  xr_args_sink_get()->entry(1, &c, 1000);
  assert_null(*point); /* the window was reached */
  *point = migrating_handler_events;
  xr_args_sink_get()->exit(1, &r, 1000);
  assert_null(*point);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  uint64_t nested = xr_fdr_writers_nested();
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  uint64_t tsc[8];
  int32_t ids[8] = {0};
  assert_int_equal(stamps(tsc, ids, 8), 2); /* enter 1, exit 1 */
  assert_int_equal(ids[0], 1);
  assert_int_equal(ids[1], 1);
  assert_int_equal(nested, 4); /* two calls of the handler, entry and exit */
  /* the values right after their records */
  size_t off = 32 + 16 + 64;
  assert_int_equal(xr_fdr_get32(trace + off), (1u << 4) | (XR_FDR_FN_ENTER_ARG << 1));
  assert_int_equal(trace[off + 8], 0x0D);
  assert_int_equal(xr_fdr_get64(trace + off + 9), 5);
}

static void sink_start_drops_pairs(void **state) {
  (void)state;
  sink_drops_pairs(&xr_fdr_test_full_head);
}
static void sink_end_drops_pairs(void **state) {
  (void)state;
  sink_drops_pairs(&xr_fdr_test_full_tail);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bail_window_keeps_time_order),
      cmocka_unit_test(full_path_start_drops_pairs),
      cmocka_unit_test(full_path_end_drops_pairs),
      cmocka_unit_test(watch_start_drops_pairs),
      cmocka_unit_test(watch_end_drops_pairs),
      cmocka_unit_test(sink_start_drops_pairs),
      cmocka_unit_test(sink_end_drops_pairs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
