/* Calls with argument values in basic mode's buffer (basic_stack.h's
 * xr_basic_on_entry_values / xr_basic_on_exit_values, basic_values.h's
 * payloads), driven with synthetic timestamps: the payloads' bytes, read
 * back into the same values; a record and its payloads never split by a
 * spill; a call with values never erased by the threshold (one with a
 * return value only neither); the depth limit; the return value written
 * after the call's own exit only (not after the exits of calls it
 * unwinds, nor for an exit without its entry); values cut to what a tiny
 * buffer holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "basic/basic_records.h"
#include "basic/basic_stack.h"
#include "basic/basic_thread.h"
#include "basic/basic_values.h"

enum { CAP = 64, FRAMES = 32, OUT = 4096 };

static struct xr_basic_record buf[CAP];
static struct xr_basic_frame frames[FRAMES];
static struct xr_basic_record out[OUT]; /* spilled records, then the rest */
static size_t out_n;
static size_t chunk_at[OUT]; /* where each spilled chunk starts in out */
static size_t chunks;
static struct xr_basic_thread th;

static void fake_spill(struct xr_basic_thread *t) {
  assert_true(out_n + t->used <= OUT);
  if (t->used > 0)
    chunk_at[chunks++] = out_n;
  memcpy(out + out_n, t->buf, t->used * sizeof(*t->buf));
  out_n += t->used;
  t->spilled += t->used;
  t->used = 0;
}

static void start(uint32_t capacity, uint32_t max_depth, uint64_t threshold) {
  memset(&th, 0, sizeof(th));
  memset(buf, 0, sizeof(buf));
  out_n = chunks = 0;
  th.buf = buf;
  th.capacity = capacity;
  th.frames = frames;
  th.frame_capacity = FRAMES;
  th.max_depth = max_depth;
  th.threshold_ticks = threshold;
  th.ids = xr_basic_ids(100, 200);
  th.spill = fake_spill;
}

static size_t all(void) {
  fake_spill(&th);
  return out_n;
}

/* Calls nest by stack pointer: depth d at 0x10000 - 0x100 * d. */
static uintptr_t sp_at(uint32_t depth) { return 0x10000 - 0x100 * (uintptr_t)depth; }

static void enter(int32_t fid, uint64_t tsc) {
  xr_basic_on_entry(&th, fid, XR_BASIC_ENTRY, tsc, 0, 0, sp_at(th.depth));
}
static void leave(int32_t fid, uint64_t tsc) {
  xr_basic_on_exit(&th, fid, XR_BASIC_EXIT, tsc, 0, sp_at(th.depth - 1));
}
static void enter_values(int32_t fid, uint64_t tsc, const struct xr_arg_call *c) {
  xr_basic_on_entry_values(&th, fid, tsc, 0, sp_at(th.depth), c);
}
static void leave_values(int32_t fid, uint64_t tsc, const struct xr_arg_call *c) {
  xr_basic_on_exit_values(&th, fid, XR_BASIC_EXIT, tsc, 0, sp_at(th.depth - 1), c);
}

static void add(struct xr_arg_call *c, uint8_t what, uint8_t format, uint64_t bits,
                uint8_t status, const char *text, size_t len) {
  size_t at = 0;
  for (unsigned i = 0; i < c->count; i++)
    at += c->v[i].len;
  c->v[c->count++] = (struct xr_arg_value){bits, what, format, status, (uint8_t)len,
                                           (uint16_t)at};
  memcpy(c->text + at, text, len);
  c->strings += format == XR_ARGF_S;
}

static const char text64[] = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789ABCDEF";

/* arg1/d, arg2/s (17 bytes: two text payloads), fparg1/f32: 4 payloads. */
static struct xr_arg_call three(void) {
  struct xr_arg_call c;
  memset(&c, 0, sizeof c);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, (uint64_t)-7, 0, "", 0);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_S, 0x4000, XR_ARGS_OK,
      "seventeen bytes!!", 17);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_FP, 1), XR_ARGF_F32, 0x7fa00001u, 0, "", 0);
  return c;
}

static struct xr_arg_call retval(uint64_t bits) {
  struct xr_arg_call c;
  memset(&c, 0, sizeof c);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_X, bits, 0, "", 0);
  return c;
}

static unsigned type_of(const struct xr_basic_record *r) { return (r->w[0] >> 24) & 0xff; }
static int32_t fid_of(const struct xr_basic_record *r) { return (int32_t)(r->w[0] >> 32); }
static bool payload(const struct xr_basic_record *r) { return (r->w[0] & 0xffff) == 1; }

/* The payloads' bytes, as docs/formats.md gives them. */
static void test_payload_bytes(void **state) {
  (void)state;
  struct xr_arg_call c = three();
  struct xr_basic_record r[4];
  uint32_t n;
  assert_int_equal(xr_basic_values_fitting(&c, 100, &n), 3);
  assert_int_equal(n, 5);
  memset(r, 0xee, sizeof r);
  xr_basic_put_values(r, 9, xr_basic_ids(100, 200), &c, 2);
  const uint8_t *b = (const uint8_t *)r;
  /* arg1: RecordType 1, what 0x11, format 1, FuncId 9, TId 100, PId 200,
   * bits, status 0, len 0. */
  static const uint8_t v1[32] = {1, 0, 0x11, 1, 9, 0, 0, 0, 100, 0, 0, 0, 200, 0, 0, 0,
                                 0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  assert_memory_equal(b, v1, 32);
  static const uint8_t v2[32] = {1, 0, 0x12, 5, 9, 0, 0, 0, 100, 0, 0, 0, 200, 0, 0, 0,
                                 0, 0x40, 0, 0, 0, 0, 0, 0, XR_ARGS_OK, 17};
  assert_memory_equal(b + 32, v2, 32);
  /* Its text: what 0xff, 16 bytes, then 1 byte and zeros. */
  static const uint8_t t1[16] = {1, 0, 0xff, 16, 9, 0, 0, 0, 100, 0, 0, 0, 200, 0, 0, 0};
  assert_memory_equal(b + 64, t1, 16);
  assert_memory_equal(b + 80, "seventeen bytes!", 16);
  static const uint8_t t2[32] = {1, 0, 0xff, 1, 9, 0, 0, 0, 100, 0, 0, 0, 200, 0, 0, 0, '!'};
  assert_memory_equal(b + 96, t2, 32);
}

/* What the reader gets back is what was written, a compiler-rt argument
 * is told apart, and text that does not belong is left out. */
static void test_read_back(void **state) {
  (void)state;
  struct xr_arg_call c = three();
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_S, 0x5000, XR_ARGS_CUT, text64, 64);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 4), XR_ARGF_S, 0, XR_ARGS_NULL, "", 0);
  struct xr_basic_record r[16];
  uint32_t n;
  unsigned k = xr_basic_values_fitting(&c, 16, &n);
  assert_int_equal(k, 5);
  assert_int_equal(n, 11);
  xr_basic_put_values(r, 9, th.ids, &c, k);
  struct xr_basic_values_reader rd;
  xr_basic_values_reset(&rd);
  uint64_t bits;
  for (uint32_t i = 0; i < n; i++)
    assert_int_not_equal(xr_basic_values_take(&rd, &r[i], &bits), XR_BASIC_PAYLOAD_LOST);
  assert_int_equal(rd.call.count, 5);
  assert_int_equal(rd.call.strings, 3);
  for (unsigned i = 0; i < 5; i++) {
    const struct xr_arg_value *a = &c.v[i], *b = &rd.call.v[i];
    assert_int_equal(a->bits, b->bits);
    assert_int_equal(a->what, b->what);
    assert_int_equal(a->format, b->format);
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(c.text + a->text, rd.call.text + b->text, a->len);
  }
  /* compiler-rt's payload: what and format 0. */
  struct xr_basic_record crt;
  xr_basic_put_arg(&crt, 9, th.ids, 1234);
  xr_basic_values_reset(&rd);
  assert_int_equal(xr_basic_values_take(&rd, &crt, &bits), XR_BASIC_PAYLOAD_ARG1);
  assert_int_equal(bits, 1234);
  assert_int_equal(rd.call.count, 0);
  /* a text payload with no string before it */
  assert_int_equal(xr_basic_values_take(&rd, &r[2], &bits), XR_BASIC_PAYLOAD_LOST);
}

/* Under a threshold that erases every plain call: the calls with values
 * stay, entry values or return value only, and so do their callers. */
static void test_never_erased(void **state) {
  (void)state;
  start(CAP, 64, 1000000);
  struct xr_arg_call c = three(), ret = retval(0x1f), none;
  memset(&none, 0, sizeof none);
  enter(1, 10);
  enter(2, 11); /* plain, short: erased */
  leave(2, 12);
  enter_values(3, 13, &c);
  leave(3, 14);
  enter_values(4, 15, &none); /* no arguments: a plain entry... */
  leave_values(4, 16, &ret);  /* ...whose return value keeps it */
  enter(5, 17);
  leave(5, 18);
  leave(1, 19);
  assert_int_equal(all(), 1 + 6 + 1 + 1 + 2 + 1);
  assert_int_equal(fid_of(&out[0]), 1);
  assert_int_equal(type_of(&out[1]), XR_BASIC_ENTRY_ARGS);
  assert_int_equal(fid_of(&out[1]), 3);
  for (int i = 2; i < 7; i++) {
    assert_true(payload(&out[i]));
    assert_int_equal(fid_of(&out[i]), 3);
  }
  assert_int_equal(type_of(&out[7]), XR_BASIC_EXIT);
  assert_int_equal(type_of(&out[8]), XR_BASIC_ENTRY);
  assert_int_equal(fid_of(&out[8]), 4);
  assert_int_equal(type_of(&out[9]), XR_BASIC_EXIT);
  assert_true(payload(&out[10]));
  assert_int_equal(out[10].w[2], 0x1f);
  assert_int_equal(fid_of(&out[11]), 1);
  assert_int_equal(th.erased, 2);
}

/* A record and its payloads are in one spill: a record that leaves no
 * room for them moves to the next buffer with them (at the same stream
 * position), and a full buffer spills before the record. */
static void test_spill_keeps_together(void **state) {
  (void)state;
  start(8, 64, 0);
  struct xr_arg_call c = three(), ret = retval(7);
  for (int i = 0; i < 3; i++) {
    enter(1, 10 + i);
    leave(1, 11 + i);
  } /* 6 records: room for 2 */
  enter_values(2, 20, &c); /* 6 records: moves */
  assert_int_equal(th.spilled, 6);
  assert_int_equal(th.used, 6);
  enter(3, 21);
  leave_values(3, 22, &ret); /* the exit fills the buffer: moves */
  assert_int_equal(th.spilled, 13);
  assert_int_equal(th.used, 2);
  enter(4, 23);
  leave(4, 24);
  enter(5, 25);
  leave(5, 26);
  enter(6, 27);
  enter(7, 28); /* full */
  leave_values(7, 29, &ret); /* spills, then exit and payload */
  assert_int_equal(th.spilled, 21);
  leave(6, 30);
  leave(2, 31);
  assert_int_equal(all(), 25);
  assert_int_equal(chunks, 4);
  static const size_t starts[4] = {0, 6, 13, 21};
  for (size_t i = 0; i < chunks; i++) {
    assert_int_equal(chunk_at[i], starts[i]);
    assert_false(payload(&out[chunk_at[i]]));
  }
  assert_int_equal(type_of(&out[6]), XR_BASIC_ENTRY_ARGS);
  assert_int_equal(fid_of(&out[6]), 2);
  for (int i = 7; i < 12; i++)
    assert_true(payload(&out[i]));
  assert_int_equal(fid_of(&out[12]), 3);
  assert_int_equal(type_of(&out[13]), XR_BASIC_EXIT);
  assert_int_equal(fid_of(&out[13]), 3);
  assert_true(payload(&out[14]));
  assert_int_equal(out[14].w[2], 7);
  assert_int_equal(type_of(&out[21]), XR_BASIC_EXIT);
  assert_int_equal(fid_of(&out[21]), 7);
  assert_true(payload(&out[22]));
  assert_int_equal(fid_of(&out[23]), 6);
  assert_int_equal(fid_of(&out[24]), 2);
}

/* Calls deeper than the limit: neither record nor values. */
static void test_depth_limit(void **state) {
  (void)state;
  start(CAP, 1, 0);
  struct xr_arg_call c = three(), ret = retval(7);
  enter(1, 10);
  enter_values(2, 11, &c);
  leave_values(2, 12, &ret);
  leave(1, 13);
  assert_int_equal(all(), 2);
  assert_int_equal(fid_of(&out[0]), 1);
  assert_int_equal(fid_of(&out[1]), 1);
}

/* A return value follows its own call's exit, after the exits (flagged
 * unwound) of the calls longjmp left above it; an exit without its entry
 * writes nothing. */
static void test_return_after_own_exit(void **state) {
  (void)state;
  start(CAP, 64, 0);
  struct xr_arg_call ret = retval(0x99);
  enter(1, 10);
  enter(2, 11);
  enter(3, 12);
  /* 3 and 2 skipped: 1 returns from its own frame */
  xr_basic_on_exit_values(&th, 1, XR_BASIC_EXIT, 13, 0, sp_at(0), &ret);
  xr_basic_on_exit_values(&th, 5, XR_BASIC_EXIT, 14, 0, sp_at(0), &ret);
  assert_int_equal(all(), 3 + 3 + 1);
  assert_int_equal(fid_of(&out[3]), 3);
  assert_int_equal(out[3].w[3], XR_BASIC_FLAG_UNWOUND);
  assert_int_equal(fid_of(&out[4]), 2);
  assert_int_equal(out[4].w[3], XR_BASIC_FLAG_UNWOUND);
  assert_int_equal(fid_of(&out[5]), 1);
  assert_int_equal(out[5].w[3], 0);
  assert_true(payload(&out[6]));
  assert_int_equal(out[6].w[2], 0x99);
  assert_int_equal(th.unmatched_exits, 1);
}

/* A buffer of 4 records holds an entry and 3 payloads: the values that
 * fit whole, in order (the string's text does not: it stops there). */
static void test_tiny_buffer(void **state) {
  (void)state;
  start(4, 64, 0);
  struct xr_arg_call c = three();
  enter_values(1, 10, &c);
  leave(1, 11);
  assert_int_equal(all(), 1 + 1 + 1);
  assert_int_equal(type_of(&out[0]), XR_BASIC_ENTRY_ARGS);
  assert_int_equal(out[1].w[2], (uint64_t)-7);
  assert_int_equal(type_of(&out[2]), XR_BASIC_EXIT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_payload_bytes),
      cmocka_unit_test(test_read_back),
      cmocka_unit_test(test_never_erased),
      cmocka_unit_test(test_spill_keeps_together),
      cmocka_unit_test(test_depth_limit),
      cmocka_unit_test(test_return_after_own_exit),
      cmocka_unit_test(test_tiny_buffer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
