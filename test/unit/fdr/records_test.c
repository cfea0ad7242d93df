/* fdr_records.h / fdr_records.c: the exact bytes of every record kind
 * (LLVM's docs/XRayFDRFormat.rst), and the short-call rewind of fdr_thread.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fdr/fdr_records.h"
#include "fdr/fdr_thread.h"
#include "xray/xray_version.h"

/* Encodes into a buffer poisoned with 0xEE, checks the returned end and that
 * nothing past it was touched. */
#define CHECK_BYTES(expr_end, buf, ...)                                        \
  do {                                                                         \
    static const uint8_t want[] = {__VA_ARGS__};                               \
    uint8_t *end_ = (expr_end);                                                \
    assert_int_equal(end_ - (buf), sizeof want);                               \
    assert_memory_equal((buf), want, sizeof want);                             \
    assert_int_equal((buf)[sizeof want], 0xEE);                                \
  } while (0)

static uint8_t buf[64];
static void poison(void) { memset(buf, 0xEE, sizeof buf); }

static void new_buffer(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_new_buffer(buf, 0x1234), buf, 0x01, 0x34, 0x12, 0, 0, 0,
              0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_new_buffer(buf, -2), buf, 0x01, 0xFE, 0xFF, 0xFF, 0xFF, 0,
              0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void end_of_buffer(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_end_of_buffer(buf), buf, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0);
}

static void new_cpu(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_new_cpu(buf, 0x0102, 0x1122334455667788ull), buf, 0x05,
              0x02, 0x01, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0, 0,
              0, 0, 0);
}

static void tsc_wrap(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_tsc_wrap(buf, 0xA1B2C3D4E5F60718ull), buf, 0x07, 0x18,
              0x07, 0xF6, 0xE5, 0xD4, 0xC3, 0xB2, 0xA1, 0, 0, 0, 0, 0, 0, 0);
}

static void walltime(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_walltime(buf, 0x0102030405060708ll, 0x0A0B0C0D), buf,
              0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x0D, 0x0C,
              0x0B, 0x0A, 0, 0, 0);
}

static void pid(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_pid(buf, 4242), buf, 0x13, 0x92, 0x10, 0, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0, 0);
}

static void call_argument(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_call_argument(buf, 100), buf, 0x0D, 0x64, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0, 0, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_call_argument(buf, UINT64_MAX), buf, 0x0D, 0xFF, 0xFF,
              0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0);
}

static void buffer_extents(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_buffer_extents(buf, 176), buf, 0x0F, 0xB0, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void custom_event_v5(void **s) {
  (void)s;
  poison();
  /* a v5 custom event marker: 11 bytes ("hello-event"), TSC delta 112 */
  CHECK_BYTES(xr_fdr_custom_event(buf, 11, 112), buf, 0x0B, 0x0B, 0, 0, 0,
              0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_custom_event(buf, 0x01020304, -1), buf, 0x0B, 0x04, 0x03,
              0x02, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0);
}

static void custom_event_v1(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_custom_event_v1(buf, 5, 0x1122334455667788ull), buf, 0x0B,
              0x05, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0,
              0, 0);
}

static void typed_event(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_typed_event(buf, 24, 0x300, 0xBEEF), buf, 0x11, 24, 0, 0,
              0, 0x00, 0x03, 0, 0, 0xEF, 0xBE, 0, 0, 0, 0, 0);
}

static void function_records(void **s) {
  (void)s;
  poison();
  CHECK_BYTES(xr_fdr_function(buf, 7, XR_FDR_FN_ENTER, 0), buf, 0x70, 0, 0, 0,
              0, 0, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_function(buf, 5, XR_FDR_FN_EXIT, 205), buf, 0x52, 0, 0, 0,
              0xCD, 0, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_function(buf, 4, XR_FDR_FN_ENTER_ARG, 0x1ED), buf, 0x46,
              0, 0, 0, 0xED, 0x01, 0, 0);
  poison();
  CHECK_BYTES(xr_fdr_function(buf, 3, XR_FDR_FN_TAIL_EXIT, 0xFFFFFFFFu), buf,
              0x34, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF);
  /* ids keep 28 bits */
  poison();
  CHECK_BYTES(xr_fdr_function(buf, 0x1FFFFFFF, XR_FDR_FN_ENTER, 1), buf, 0xF0,
              0xFF, 0xFF, 0xFF, 1, 0, 0, 0);
}

static void file_header(void **s) {
  (void)s;
  uint8_t h[40];
  memset(h, 0xEE, sizeof h);
  xr_fdr_file_header(h, 5, true, true, 1000000000u, 16384);
  /* bytes 24-31: "XRRT", major, minor, patch (u16): the runtime's stamp */
#define STAMP 'X', 'R', 'R', 'T', XRAY_RUNTIME_VERSION_MAJOR, XRAY_RUNTIME_VERSION_MINOR, \
              XRAY_RUNTIME_VERSION_PATCH & 0xff, XRAY_RUNTIME_VERSION_PATCH >> 8
  static const uint8_t want[32] = {0x05, 0x00, 0x01, 0x00, 0x03, 0, 0, 0,
                                   0x00, 0xCA, 0x9A, 0x3B, 0, 0, 0, 0,
                                   0x00, 0x40, 0, 0, 0, 0, 0, 0, STAMP};
  assert_memory_equal(h, want, 32);
  assert_int_equal(h[32], 0xEE);
  xr_fdr_file_header(h, 1, false, true, 2400000000u, 256);
  static const uint8_t want1[32] = {0x01, 0x00, 0x01, 0x00, 0x02, 0, 0, 0,
                                    0x00, 0x18, 0x0D, 0x8F, 0, 0, 0, 0,
                                    0x00, 0x01, 0, 0, 0, 0, 0, 0, STAMP};
  assert_memory_equal(h, want1, 32);
#undef STAMP
}

static void preambles(void **s) {
  (void)s;
  uint8_t p[80];
  memset(p, 0xEE, sizeof p);
  uint8_t *end = xr_fdr_preamble(p, 5, 77, 88, 3, 4, 2, 1000);
  assert_int_equal(end - p, XR_FDR_PREAMBLE_V5);
  assert_int_equal(p[0], 0x01);
  assert_int_equal(p[1], 77);
  assert_int_equal(p[16], 0x09);
  assert_int_equal(p[17], 3);
  assert_int_equal(p[25], 4);
  assert_int_equal(p[32], 0x13);
  assert_int_equal(p[33], 88);
  assert_int_equal(p[48], 0x05);
  assert_int_equal(p[49], 2);
  assert_int_equal(p[51], 1000 & 0xFF);
  assert_int_equal(p[52], 1000 >> 8);
  assert_int_equal(p[64], 0xEE);
  memset(p, 0xEE, sizeof p);
  end = xr_fdr_preamble(p, 1, 77, 88, 3, 4, 2, 1000);
  assert_int_equal(end - p, XR_FDR_PREAMBLE_V1);
  assert_int_equal(p[0], 0x01);
  assert_int_equal(p[16], 0x09);
  assert_int_equal(p[32], 0x05); /* no Pid record in version 1 */
  assert_int_equal(p[48], 0xEE);
}

static void copy_every_length(void **s) {
  (void)s;
  uint8_t src[40], dst[48];
  for (size_t i = 0; i < sizeof src; i++)
    src[i] = (uint8_t)(i * 7 + 1);
  for (size_t n = 0; n <= sizeof src; n++) {
    for (size_t off = 0; off < 3; off++) {
      memset(dst, 0xEE, sizeof dst);
      uint8_t *end = xr_fdr_copy(dst + off, src, n);
      assert_ptr_equal(end, dst + off + n);
      assert_memory_equal(dst + off, src, n);
      assert_int_equal(dst[off + n], 0xEE);
      if (off)
        assert_int_equal(dst[off - 1], 0xEE);
    }
  }
}

/* ---- rewind ------------------------------------------------------------ */

/* A run of enter records with given ids and TSC deltas; returns its end and
 * the TSC of its last record via *last (first record at base_tsc + d0). */
static uint8_t run[8 * 64];
static uint8_t *make_run(const int32_t *ids, const uint32_t *deltas, int n,
                         uint64_t base_tsc, uint64_t *last) {
  uint8_t *p = run;
  uint64_t tsc = base_tsc;
  for (int i = 0; i < n; i++) {
    p = xr_fdr_function(p, ids[i], XR_FDR_FN_ENTER, deltas[i]);
    tsc += deltas[i];
  }
  *last = tsc;
  return p;
}

static void rewind_innermost_short_call(void **s) {
  (void)s;
  int32_t ids[] = {1, 2, 3};
  uint32_t d[] = {10, 20, 30};
  uint64_t last;
  uint8_t *end = make_run(ids, d, 3, 1000, &last); /* tscs 1010 1030 1060 */
  assert_int_equal(last, 1060);
  uint64_t l = last;
  /* exit of 3 at 1065, threshold 10: 5 ticks, erased */
  uint8_t *back = xr_fdr_rewind(run, end, 3, 1065, 10, &l);
  assert_ptr_equal(back, run + 16);
  assert_int_equal(l, 1030); /* the TSC of enter 2, now the last record */
  /* then exit of 2 at 1039: 9 < 10 ticks, erased too */
  back = xr_fdr_rewind(run, back, 2, 1039, 10, &l);
  assert_ptr_equal(back, run + 8);
  assert_int_equal(l, 1010);
  /* exit of 1 at 1020: exactly the threshold, kept */
  uint64_t l2 = l;
  assert_null(xr_fdr_rewind(run, back, 1, 1020, 10, &l2));
  assert_int_equal(l2, l); /* untouched on failure */
}

static void rewind_long_call_is_kept(void **s) {
  (void)s;
  int32_t ids[] = {4};
  uint32_t d[] = {0};
  uint64_t last;
  uint8_t *end = make_run(ids, d, 1, 500, &last);
  uint64_t l = last;
  assert_null(xr_fdr_rewind(run, end, 4, 600, 50, &l));
  assert_int_equal(l, 500);
  /* a TSC that went backwards is never a short call */
  assert_null(xr_fdr_rewind(run, end, 4, 499, 50, &l));
}

static void rewind_skipped_frames(void **s) {
  (void)s;
  /* 1 -> 2 -> 3 entered; a longjmp skips the exits of 3 and 2; 1 exits. */
  int32_t ids[] = {1, 2, 3};
  uint32_t d[] = {1, 2, 3};
  uint64_t last;
  uint8_t *end = make_run(ids, d, 3, 100, &last); /* 101 103 106 */
  uint64_t l = last;
  uint8_t *back = xr_fdr_rewind(run, end, 1, 110, 20, &l);
  assert_ptr_equal(back, run);
  assert_int_equal(l, 100);
  /* an exit of a function that is not in the run: nothing to erase */
  l = last;
  assert_null(xr_fdr_rewind(run, end, 9, 107, 20, &l));
  /* the run start bounds the search: enter 1 is before run_start */
  l = last;
  assert_null(xr_fdr_rewind(run + 8, end, 1, 107, 20, &l));
}

static void rewind_recursion_takes_newest(void **s) {
  (void)s;
  int32_t ids[] = {5, 6, 5};
  uint32_t d[] = {1, 1, 1};
  uint64_t last;
  uint8_t *end = make_run(ids, d, 3, 0, &last);
  uint64_t l = last;
  assert_ptr_equal(xr_fdr_rewind(run, end, 5, 4, 100, &l), run + 16);
  assert_int_equal(l, 2);
}

static void rewind_scan_is_bounded(void **s) {
  (void)s;
  int32_t ids[XR_FDR_REWIND_SCAN + 1];
  uint32_t d[XR_FDR_REWIND_SCAN + 1];
  for (int i = 0; i <= XR_FDR_REWIND_SCAN; i++)
    ids[i] = 100 + i, d[i] = 1;
  uint64_t last;
  uint8_t *end = make_run(ids, d, XR_FDR_REWIND_SCAN + 1, 0, &last);
  uint64_t l = last;
  /* the deepest enter is one past the scan limit */
  assert_null(xr_fdr_rewind(run, end, 100, last + 1, 1000, &l));
  /* one within it is found */
  assert_ptr_equal(xr_fdr_rewind(run, end, 101, last + 1, 1000, &l), run + 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(new_buffer),
      cmocka_unit_test(end_of_buffer),
      cmocka_unit_test(new_cpu),
      cmocka_unit_test(tsc_wrap),
      cmocka_unit_test(walltime),
      cmocka_unit_test(pid),
      cmocka_unit_test(call_argument),
      cmocka_unit_test(buffer_extents),
      cmocka_unit_test(custom_event_v5),
      cmocka_unit_test(custom_event_v1),
      cmocka_unit_test(typed_event),
      cmocka_unit_test(function_records),
      cmocka_unit_test(file_header),
      cmocka_unit_test(preambles),
      cmocka_unit_test(copy_every_length),
      cmocka_unit_test(rewind_innermost_short_call),
      cmocka_unit_test(rewind_long_call_is_kept),
      cmocka_unit_test(rewind_skipped_frames),
      cmocka_unit_test(rewind_recursion_takes_newest),
      cmocka_unit_test(rewind_scan_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
