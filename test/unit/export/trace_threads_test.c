/* The table of a trace writer's threads and their call stacks: threads
 * found again after the table grew (the writer's own data with them), the
 * exit rule (frames above the match end "unwound", no match is a
 * "no-entry" call, an untracked exit matches the latest untracked call)
 * and the calls left open at the end, in the order a writer gets them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "export/trace_threads.h"

/* A writer's thread: the shared record first, its own data after. */
struct writer_thread {
  struct xr_trace_thread base;
  uint64_t tag;
};

static void test_table_grows_and_finds(void **state) {
  (void)state;
  struct xr_trace_threads ts;
  xr_trace_threads_init(&ts, sizeof(struct writer_thread));
  assert_null(xr_trace_threads_find(&ts, 1, 1));
  enum { N = 1000 }; /* the table doubles from 64 four times */
  for (int32_t i = 0; i < N; i++) {
    struct writer_thread *t = (struct writer_thread *)xr_trace_threads_add(
        &ts, 7 + i % 3, 100 + i, (uint64_t)i * 10);
    assert_non_null(t);
    assert_ptr_equal(ts.last, &t->base);
    assert_int_equal(t->tag, 0); /* zeroed whole */
    assert_int_equal(t->base.first_tsc, (uint64_t)i * 10);
    t->tag = 5000 + (uint64_t)i;
  }
  assert_int_equal(ts.count, N);
  assert_int_equal(ts.cap, 2048);
  for (int32_t i = 0; i < N; i++) {
    struct writer_thread *t = (struct writer_thread *)xr_trace_threads_find(
        &ts, 7 + i % 3, 100 + i);
    assert_non_null(t);
    assert_int_equal(t->base.pid, 7 + i % 3);
    assert_int_equal(t->base.tid, 100 + i);
    assert_int_equal(t->tag, 5000 + (uint64_t)i);
    assert_ptr_equal(xr_trace_threads_find(&ts, 7 + i % 3, 100 + i), t);
  }
  assert_null(xr_trace_threads_find(&ts, 7, 101)); /* tid 101 is pid 8's */
  size_t seen = 0;
  uint64_t tags = 0;
  for (size_t i = 0; i < ts.cap; i++) {
    struct writer_thread *t =
        (struct writer_thread *)xr_trace_threads_at(&ts, i);
    if (t != NULL) {
      seen++;
      tags += t->tag - 5000;
    }
  }
  assert_int_equal(seen, N);
  assert_int_equal(tags, (uint64_t)N * (N - 1) / 2);
  xr_trace_threads_free(&ts);
  assert_int_equal(ts.cap, 0);
  assert_null(ts.last);
}

/* What the writer was handed, in order. */
static struct ended {
  int32_t fid; /* -1: an untracked call (no frame) */
  uint64_t begin, end;
  enum xr_trace_mark mark;
} ended[2048];
static size_t n_ended;

static void record_end(void *w, struct xr_trace_thread *t,
                       const struct xr_trace_frame *f, uint64_t tsc,
                       enum xr_trace_mark mark) {
  assert_ptr_equal(w, &n_ended);
  (void)t;
  assert_true(n_ended < 2048);
  ended[n_ended++] = (struct ended){f ? f->fid : -1, f ? f->tsc : 0, tsc,
                                    mark};
}

static void exit_of(struct xr_trace_thread *t, int32_t fid, uint64_t tsc,
                    bool unwound) {
  struct xr_tev e = {.kind = XR_TEV_EXIT, .fid = fid, .tsc = tsc,
                     .unwound = unwound};
  t->last_tsc = tsc;
  xr_trace_thread_exit(t, &e, record_end, &n_ended);
}

static void expect(size_t i, int32_t fid, uint64_t begin, uint64_t end,
                   enum xr_trace_mark mark) {
  assert_int_equal(ended[i].fid, fid);
  assert_int_equal(ended[i].begin, begin);
  assert_int_equal(ended[i].end, end);
  assert_int_equal(ended[i].mark, mark);
}

static void test_exit_rule(void **state) {
  (void)state;
  struct xr_trace_threads ts;
  xr_trace_threads_init(&ts, sizeof(struct xr_trace_thread));
  struct xr_trace_thread *t = xr_trace_threads_add(&ts, 1, 2, 5);
  n_ended = 0;
  assert_true(xr_trace_thread_push(t, 1, 10));
  assert_true(xr_trace_thread_push(t, 2, 20));
  assert_true(xr_trace_thread_push(t, 3, 30));
  exit_of(t, 2, 40, false); /* 3's exit was skipped */
  assert_int_equal(n_ended, 2);
  expect(0, 3, 30, 40, XR_MARK_UNWOUND);
  expect(1, 2, 20, 40, XR_MARK_NONE);
  exit_of(t, 1, 50, true); /* written while unwinding */
  expect(2, 1, 10, 50, XR_MARK_UNWOUND);
  exit_of(t, 9, 60, false); /* its entry was lost */
  assert_int_equal(n_ended, 4);
  expect(3, 9, 5, 60, XR_MARK_NO_ENTRY);
  assert_true(xr_trace_thread_push(t, 4, 70));
  exit_of(t, 8, 80, false); /* no match: 4 too was skipped */
  assert_int_equal(n_ended, 6);
  expect(4, 4, 70, 80, XR_MARK_UNWOUND);
  expect(5, 8, 5, 80, XR_MARK_NO_ENTRY);
  assert_int_equal(t->depth, 0);
  xr_trace_threads_free(&ts);
}

static void test_untracked_and_open(void **state) {
  (void)state;
  struct xr_trace_threads ts;
  xr_trace_threads_init(&ts, sizeof(struct xr_trace_thread));
  struct xr_trace_thread *t = xr_trace_threads_add(&ts, 1, 2, 0);
  n_ended = 0;
  enum { DEEP = 1000 }; /* the stack grows from 256 twice */
  for (int32_t i = 0; i < DEEP; i++)
    assert_true(xr_trace_thread_push(t, i, (uint64_t)i));
  /* As a stack that could not grow has it: the next calls are counted. */
  t->untracked = 1;
  assert_false(xr_trace_thread_push(t, 5000, 2000));
  assert_int_equal(t->untracked, 2);
  assert_int_equal(t->depth, DEEP);
  exit_of(t, 5000, 2001, true); /* taken to match, no frame */
  assert_int_equal(n_ended, 1);
  expect(0, -1, 0, 2001, XR_MARK_UNWOUND);
  assert_int_equal(t->untracked, 1);
  t->last_tsc = 3000;
  xr_trace_thread_end_open(t, record_end, &n_ended);
  assert_int_equal(n_ended, 2 + DEEP);
  expect(1, -1, 0, 3000, XR_MARK_OPEN); /* the deepest first */
  for (size_t i = 0; i < DEEP; i++)
    expect(2 + i, (int32_t)(DEEP - 1 - i), DEEP - 1 - i, 3000, XR_MARK_OPEN);
  assert_int_equal(t->untracked, 0);
  assert_int_equal(t->depth, 0);
  xr_trace_threads_free(&ts);
}

static void test_mark_text(void **state) {
  (void)state;
  assert_string_equal(xr_trace_mark_text[XR_MARK_NONE], "");
  assert_string_equal(xr_trace_mark_text[XR_MARK_UNWOUND], "unwound");
  assert_string_equal(xr_trace_mark_text[XR_MARK_OPEN], "open");
  assert_string_equal(xr_trace_mark_text[XR_MARK_NO_ENTRY], "no-entry");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_grows_and_finds),
      cmocka_unit_test(test_exit_rule),
      cmocka_unit_test(test_untracked_and_open),
      cmocka_unit_test(test_mark_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
