/* The shadow-stack filter of basic mode (basic_stack.h, the code the lean
 * handlers inline), driven with synthetic timestamps:
 * rewinds of short calls, the depth limit, threshold 0, unwinding of exits
 * skipped by longjmp, exits of calls entered before recording, and buffer
 * spills (an entry and its payload never straddle one). enter/leave give
 * the stack pointer a caller without one would (xr_basic_implied_sp); the
 * _at forms give it explicitly, as the trampolines do: calls left by an
 * exception caught where no sled sees it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "basic/basic_records.h"
#include "basic/basic_stack.h"
#include "basic/basic_thread.h"

enum { CAP = 64, FRAMES = 32, OUT = 4096 };

static struct xr_basic_record buf[CAP];
static struct xr_basic_frame frames[FRAMES];
static struct xr_basic_record out[OUT]; /* spilled records, then the rest */
static size_t out_n;
static struct xr_basic_thread th;

static void fake_spill(struct xr_basic_thread *t) {
  assert_true(out_n + t->used <= OUT);
  memcpy(out + out_n, t->buf, t->used * sizeof(*t->buf));
  out_n += t->used;
  t->spilled += t->used;
  t->used = 0;
}

static void start(uint32_t capacity, uint32_t max_depth, uint64_t threshold) {
  memset(&th, 0, sizeof(th));
  memset(buf, 0, sizeof(buf));
  out_n = 0;
  th.buf = buf;
  th.capacity = capacity;
  th.frames = frames;
  th.frame_capacity = FRAMES;
  th.max_depth = max_depth;
  th.threshold_ticks = threshold;
  th.ids = xr_basic_ids(100, 200);
  th.spill = fake_spill;
}

/* Everything recorded so far, spilled or not, in order. */
static size_t all(void) {
  fake_spill(&th);
  return out_n;
}

static void enter(int32_t fid, uint64_t tsc) {
  xr_basic_on_entry(&th, fid, XR_BASIC_ENTRY, tsc, 0, 0, xr_basic_implied_sp(&th, fid, false));
}
static void leave(int32_t fid, uint64_t tsc) {
  xr_basic_on_exit(&th, fid, XR_BASIC_EXIT, tsc, 0, xr_basic_implied_sp(&th, fid, true));
}

static void enter_at(int32_t fid, uint64_t tsc, uintptr_t sp) {
  xr_basic_on_entry(&th, fid, XR_BASIC_ENTRY, tsc, 0, 0, sp);
}
static void leave_at(int32_t fid, uint64_t tsc, uintptr_t sp) {
  xr_basic_on_exit(&th, fid, XR_BASIC_EXIT, tsc, 0, sp);
}

static unsigned kind(size_t i) { return (unsigned)(out[i].w[0] >> 24) & 0xff; }
static int32_t fid(size_t i) { return (int32_t)(out[i].w[0] >> 32); }
static uint64_t tsc(size_t i) { return out[i].w[1]; }
static unsigned rtype(size_t i) { return (unsigned)(out[i].w[0] & 0xffff); }

/* The last 8 bytes: 0, or the flags byte (byte 24) and 7 zero bytes. */
static uint64_t pad(size_t i) { return out[i].w[3]; }

static void expect(size_t i, unsigned k, int32_t f, uint64_t t) {
  assert_int_equal(rtype(i), 0);
  assert_int_equal(kind(i), k);
  assert_int_equal(fid(i), f);
  assert_true(tsc(i) == t);
  assert_true(pad(i) == 0);
}

/* An exit written while unwinding: flagged in byte 24, nothing else. */
static void expect_unwound(size_t i, int32_t f, uint64_t t) {
  assert_int_equal(rtype(i), 0);
  assert_int_equal(kind(i), XR_BASIC_EXIT);
  assert_int_equal(fid(i), f);
  assert_true(tsc(i) == t);
  assert_true(pad(i) == XR_BASIC_FLAG_UNWOUND);
  uint8_t bytes[sizeof out[i]];
  memcpy(bytes, &out[i], sizeof bytes);
  assert_int_equal(bytes[XR_BASIC_FLAGS_OFFSET], XR_BASIC_FLAG_UNWOUND);
}

static void threshold_zero_keeps_every_call(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter(1, 100);
  enter(2, 100); /* zero-length call */
  leave(2, 100);
  leave(1, 101);
  assert_int_equal(all(), 4);
  expect(0, XR_BASIC_ENTRY, 1, 100);
  expect(1, XR_BASIC_ENTRY, 2, 100);
  expect(2, XR_BASIC_EXIT, 2, 100);
  expect(3, XR_BASIC_EXIT, 1, 101);
  assert_true(out[0].w[2] == xr_basic_ids(100, 200));
  assert_int_equal(th.depth, 0);
}

static void short_call_is_rewound_long_call_kept(void **state) {
  (void)state;
  start(CAP, 64, 10);
  enter(1, 100);
  enter(2, 200);
  leave(2, 209); /* 9 < 10 ticks: rewound */
  enter(3, 300);
  leave(3, 310); /* 10 ticks: kept */
  leave(1, 400);
  assert_int_equal(all(), 4);
  expect(0, XR_BASIC_ENTRY, 1, 100);
  expect(1, XR_BASIC_ENTRY, 3, 300);
  expect(2, XR_BASIC_EXIT, 3, 310);
  expect(3, XR_BASIC_EXIT, 1, 400);
}

static void short_parent_of_rewound_calls_is_rewound_too(void **state) {
  (void)state;
  start(CAP, 64, 1000);
  enter(1, 100);
  enter(2, 110);
  leave(2, 120);
  enter(2, 130);
  leave(2, 140);
  leave(1, 150);
  assert_int_equal(all(), 0);
}

static void parent_with_kept_child_is_kept(void **state) {
  (void)state;
  start(CAP, 64, 1000);
  enter(1, 100);
  enter(2, 110);
  leave(2, 5000); /* long */
  leave(1, 5001); /* short itself, but not the last thing in the buffer */
  assert_int_equal(all(), 4);
  expect(3, XR_BASIC_EXIT, 1, 5001);
}

static void other_cpu_or_backwards_clock_is_kept(void **state) {
  (void)state;
  start(CAP, 64, 1000);
  xr_basic_on_entry(&th, 1, XR_BASIC_ENTRY, 100, 3, 0, xr_basic_implied_sp(&th, 1, false));
  xr_basic_on_exit(&th, 1, XR_BASIC_EXIT, 110, 4, xr_basic_implied_sp(&th, 1, true)); /* migrated */
  xr_basic_on_entry(&th, 2, XR_BASIC_ENTRY, 500, 3, 0, xr_basic_implied_sp(&th, 2, false));
  xr_basic_on_exit(&th, 2, XR_BASIC_EXIT, 400, 3, xr_basic_implied_sp(&th, 2, true)); /* TSC went back */
  assert_int_equal(all(), 4);
  expect(1, XR_BASIC_EXIT, 1, 110);
  assert_int_equal((out[1].w[0] >> 16) & 0xff, 4);
  expect(3, XR_BASIC_EXIT, 2, 400);
}

static void tail_exit_closes_like_exit(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter(1, 1);
  xr_basic_on_exit(&th, 1, XR_BASIC_TAIL, 2, 0, xr_basic_implied_sp(&th, 1, true));
  enter(2, 3);
  leave(2, 4);
  assert_int_equal(all(), 4);
  expect(1, XR_BASIC_TAIL, 1, 2);
  assert_int_equal(th.depth, 0);
}

static void arg_payload_written_and_rewound_together(void **state) {
  (void)state;
  start(CAP, 64, 50);
  xr_basic_on_entry(&th, 7, XR_BASIC_ENTRY_ARGS, 100, 0, 42, xr_basic_implied_sp(&th, 7, false));
  leave(7, 120); /* short: entry and payload go */
  assert_int_equal(th.used, 0);
  xr_basic_on_entry(&th, 7, XR_BASIC_ENTRY_ARGS, 200, 0, 43, xr_basic_implied_sp(&th, 7, false));
  leave(7, 300);
  assert_int_equal(all(), 3);
  expect(0, XR_BASIC_ENTRY_ARGS, 7, 200);
  assert_int_equal(rtype(1), 1);
  assert_int_equal((int32_t)(out[1].w[0] >> 32), 7);
  assert_true(out[1].w[1] == xr_basic_ids(100, 200));
  assert_true(out[1].w[2] == 43);
  expect(2, XR_BASIC_EXIT, 7, 300);
}

/* Recursion 10 deep with max_depth 3: only depths 1..3 are written. */
static void depth_limit(void **state) {
  (void)state;
  start(CAP, 3, 0);
  for (int d = 0; d < 10; d++)
    enter(5, (uint64_t)(10 + d));
  for (int d = 9; d >= 0; d--)
    leave(5, (uint64_t)(100 - d));
  assert_int_equal(all(), 6);
  expect(0, XR_BASIC_ENTRY, 5, 10);
  expect(1, XR_BASIC_ENTRY, 5, 11);
  expect(2, XR_BASIC_ENTRY, 5, 12);
  expect(3, XR_BASIC_EXIT, 5, 98);
  expect(4, XR_BASIC_EXIT, 5, 99);
  expect(5, XR_BASIC_EXIT, 5, 100);
  assert_int_equal(th.depth, 0);
}

static void depth_zero_writes_nothing(void **state) {
  (void)state;
  start(CAP, 0, 0);
  enter(1, 1);
  leave(1, 2);
  assert_int_equal(all(), 0);
}

/* f -> g -> h, then h and g are skipped (longjmp) and f exits: g and h are
 * closed at f's exit time, so the file stays well nested, and their exits
 * are flagged (byte 24) as written while unwinding. */
static void exit_below_top_unwinds(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter(1, 10);
  enter(2, 20);
  enter(3, 30);
  leave(1, 40);
  assert_int_equal(th.depth, 0);
  assert_int_equal(th.unwound, 2);
  assert_int_equal(all(), 6);
  expect(0, XR_BASIC_ENTRY, 1, 10);
  expect(1, XR_BASIC_ENTRY, 2, 20);
  expect(2, XR_BASIC_ENTRY, 3, 30);
  expect_unwound(3, 3, 40);
  expect_unwound(4, 2, 40);
  expect(5, XR_BASIC_EXIT, 1, 40); /* its own exit: not flagged */
}

/* Skipped short calls at the end of the buffer are rewound, not closed. */
static void unwound_short_calls_are_rewound(void **state) {
  (void)state;
  start(CAP, 64, 100);
  enter(1, 10);
  enter(2, 20);
  enter(3, 30);
  leave(1, 40);
  assert_int_equal(all(), 0);
  assert_int_equal(th.depth, 0);
}

/* Thousands of longjmps out of a depth-3 nest: depth stays bounded and the
 * calls after are recorded. */
static void repeated_longjmp_keeps_depth_bounded(void **state) {
  (void)state;
  start(CAP, 4, 0);
  uint64_t t = 0;
  for (int i = 0; i < 10000; i++) {
    enter(1, ++t); /* the function that calls setjmp */
    enter(2, ++t);
    enter(3, ++t);
    enter(4, ++t); /* longjmps back into 1 */
    leave(1, ++t);
    assert_int_equal(th.depth, 0);
    th.used = 0; /* keep the buffer small: the records are checked below */
  }
  enter(9, 1000000);
  leave(9, 1000001);
  assert_int_equal(all(), 2);
  expect(0, XR_BASIC_ENTRY, 9, 1000000);
  expect(1, XR_BASIC_EXIT, 9, 1000001);
}

/* Exits of calls entered before recording started are dropped, and close
 * nothing: such a call is below every tracked one. */
static void exits_of_calls_begun_before_recording(void **state) {
  (void)state;
  start(CAP, 64, 0);
  leave(8, 5); /* empty stack */
  assert_int_equal(th.unmatched_exits, 1);
  enter(1, 10);
  enter(2, 20);
  leave(8, 30); /* 8 was entered before recording */
  assert_int_equal(th.depth, 2);
  assert_int_equal(th.unmatched_exits, 2);
  leave(2, 40);
  leave(1, 50);
  assert_int_equal(th.unwound, 0);
  assert_int_equal(all(), 4);
  expect(2, XR_BASIC_EXIT, 2, 40);
  expect(3, XR_BASIC_EXIT, 1, 50);
}

/* Recursion: the exit matches the innermost frame of that function. */
static void recursion_matches_innermost(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter(1, 1);
  enter(2, 2);
  enter(1, 3);
  enter(3, 4);
  leave(1, 5); /* 3 skipped */
  assert_int_equal(th.depth, 2);
  leave(2, 6);
  leave(1, 7);
  assert_int_equal(all(), 8);
  expect_unwound(4, 3, 5);
  expect(5, XR_BASIC_EXIT, 1, 5);
  expect(6, XR_BASIC_EXIT, 2, 6);
  expect(7, XR_BASIC_EXIT, 1, 7);
}

/* Deeper than the frame array: counted, and exits there match blindly. */
static void deeper_than_tracked(void **state) {
  (void)state;
  start(CAP, 2, 0);
  for (int d = 0; d < FRAMES + 5; d++)
    enter(1, 1);
  assert_int_equal(th.depth, FRAMES + 5);
  for (int d = 0; d < FRAMES + 5; d++)
    leave(1, 2);
  assert_int_equal(th.depth, 0);
  assert_int_equal(all(), 4);
}

/* A full buffer is spilled before the record that does not fit; an entry
 * and its payload never straddle a spill; a call whose entry was spilled
 * cannot be rewound and gets an exit record. */
static void spills_keep_pairs_and_stop_rewinds(void **state) {
  (void)state;
  start(3, 64, 1000);
  enter(1, 10);
  enter(2, 20);
  xr_basic_on_entry(&th, 3, XR_BASIC_ENTRY_ARGS, 30, 0, 99, xr_basic_implied_sp(&th, 3, false)); /* needs 2 */
  assert_int_equal(out_n, 2); /* spilled 1 and 2 first */
  assert_int_equal(th.used, 2);
  leave(3, 31);               /* rewound: still in the buffer */
  assert_int_equal(th.used, 0);
  leave(2, 32);               /* entry spilled: exit written */
  leave(1, 33);
  assert_int_equal(all(), 4);
  expect(0, XR_BASIC_ENTRY, 1, 10);
  expect(1, XR_BASIC_ENTRY, 2, 20);
  expect(2, XR_BASIC_EXIT, 2, 32);
  expect(3, XR_BASIC_EXIT, 1, 33);
}


/* thrower() at sp 1000 throws, caught by an untraced caller: nothing sees
 * its exit. Called again at the same place, the next entry at 1000 finds
 * it gone; later() at 1100 (shallower) closes the last one. */
static void exception_caught_where_no_sled_is(void **state) {
  (void)state;
  start(CAP, 4, 0);
  for (uint64_t i = 0; i < 10; i++)
    enter_at(1, 10 * i, 1000);
  assert_int_equal(th.depth, 1);
  enter_at(2, 200, 1100);
  leave_at(2, 210, 1100);
  assert_int_equal(th.depth, 0);
  assert_int_equal(th.unwound, 10);
  assert_int_equal(th.unmatched_exits, 0);
  assert_int_equal(all(), 22);
  for (uint64_t i = 0; i < 10; i++) {
    expect(2 * i, XR_BASIC_ENTRY, 1, 10 * i);
    expect_unwound(2 * i + 1, 1, i < 9 ? 10 * (i + 1) : 200);
  }
  expect(20, XR_BASIC_ENTRY, 2, 200);
  expect(21, XR_BASIC_EXIT, 2, 210);
}

/* f(2) at 1000 -> f(1) at 900 -> f(0) at 800 throws; f(1) catches and
 * returns: its exit at 900 closes f(0) first (unwound), then itself. By id
 * alone the exit would have closed f(0) as f(1)'s. */
static void recursion_by_stack_pointer(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter_at(5, 1, 1000);
  enter_at(5, 2, 900);
  enter_at(5, 3, 800);
  leave_at(5, 7, 900);
  leave_at(5, 9, 1000);
  assert_int_equal(th.depth, 0);
  assert_int_equal(th.unwound, 1);
  assert_int_equal(all(), 6);
  expect(0, XR_BASIC_ENTRY, 5, 1);
  expect(1, XR_BASIC_ENTRY, 5, 2);
  expect(2, XR_BASIC_ENTRY, 5, 3);
  expect_unwound(3, 5, 7);
  expect(4, XR_BASIC_EXIT, 5, 7);
  expect(5, XR_BASIC_EXIT, 5, 9);
}

/* A tail call at the same stack pointer without a tail sled: the callee's
 * entry closes the caller (its exit never comes). */
static void same_stack_pointer_closes_the_top(void **state) {
  (void)state;
  start(CAP, 64, 0);
  enter_at(1, 1, 1000);
  enter_at(2, 2, 1000);
  leave_at(2, 3, 1000);
  assert_int_equal(th.depth, 0);
  assert_int_equal(all(), 4);
  expect(0, XR_BASIC_ENTRY, 1, 1);
  expect_unwound(1, 1, 2);
  expect(2, XR_BASIC_ENTRY, 2, 2);
  expect(3, XR_BASIC_EXIT, 2, 3);
}

/* An event far above the open calls (beyond XR_FRAME_WINDOW) runs on
 * another stack, a signal handler's say: it nests, closing nothing, and
 * the calls it interrupted go on. */
static void another_stack_closes_nothing(void **state) {
  (void)state;
  start(CAP, 64, 0);
  uintptr_t main_sp = 0x10000000, alt = main_sp + XR_FRAME_WINDOW;
  enter_at(1, 1, main_sp);
  enter_at(2, 2, alt);
  leave_at(2, 3, alt);
  leave_at(1, 4, main_sp);
  assert_int_equal(th.unwound, 0);
  assert_int_equal(all(), 4);
  expect(1, XR_BASIC_ENTRY, 2, 2);
  expect(3, XR_BASIC_EXIT, 1, 4);
}

/* Calls deeper than the tracked frames (not written: below max_depth) go
 * with the deepest tracked one when an exception takes them all. */
static void untracked_calls_go_with_the_deepest(void **state) {
  (void)state;
  start(CAP, 2, 0);
  for (uint32_t i = 0; i < FRAMES + 5; i++)
    enter_at(1, i, 10000 - 16 * (uintptr_t)i);
  assert_int_equal(th.depth, FRAMES + 5);
  enter_at(3, 100, 10000); /* caught at the top: everything left */
  leave_at(3, 101, 10000);
  assert_int_equal(th.depth, 0);
  assert_int_equal(th.unwound, FRAMES + 5);
  assert_int_equal(all(), 6);
  expect(0, XR_BASIC_ENTRY, 1, 0);
  expect(1, XR_BASIC_ENTRY, 1, 1);
  expect_unwound(2, 1, 100);
  expect_unwound(3, 1, 100);
  expect(4, XR_BASIC_ENTRY, 3, 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(threshold_zero_keeps_every_call),
      cmocka_unit_test(short_call_is_rewound_long_call_kept),
      cmocka_unit_test(short_parent_of_rewound_calls_is_rewound_too),
      cmocka_unit_test(parent_with_kept_child_is_kept),
      cmocka_unit_test(other_cpu_or_backwards_clock_is_kept),
      cmocka_unit_test(tail_exit_closes_like_exit),
      cmocka_unit_test(arg_payload_written_and_rewound_together),
      cmocka_unit_test(depth_limit),
      cmocka_unit_test(depth_zero_writes_nothing),
      cmocka_unit_test(exit_below_top_unwinds),
      cmocka_unit_test(unwound_short_calls_are_rewound),
      cmocka_unit_test(repeated_longjmp_keeps_depth_bounded),
      cmocka_unit_test(exits_of_calls_begun_before_recording),
      cmocka_unit_test(recursion_matches_innermost),
      cmocka_unit_test(deeper_than_tracked),
      cmocka_unit_test(exception_caught_where_no_sled_is),
      cmocka_unit_test(recursion_by_stack_pointer),
      cmocka_unit_test(same_stack_pointer_closes_the_top),
      cmocka_unit_test(another_stack_closes_nothing),
      cmocka_unit_test(untracked_calls_go_with_the_deepest),
      cmocka_unit_test(spills_keep_pairs_and_stop_rewinds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
