/* Captured values as text (arg_text.c, float_text.c): floats as printf's
 * %.17g / %.9g writes them, over 400,000 bit patterns of every kind
 * (subnormals, the extremes, halfway cases), and each format's JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "export/arg_text.h"
#include "export/float_text.h"

static uint64_t seed = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

/* Random bits, and bits of every exponent's edge (subnormals included). */
static uint64_t double_bits(int i) {
  uint64_t b = next();
  switch (i % 4) {
  case 1:
    return b & 0x800fffffffffffffull; /* subnormal */
  case 2: /* exponents near 0: the fixed notation and its edges */
    return (b & 0x800fffffffffffffull) | (uint64_t)(1023 + (int)(next() % 80) - 40) << 52;
  case 3:
    return b & 0xfff0000000000000ull; /* powers of two */
  default:
    return b;
  }
}

static void test_like_printf(void **state) {
  (void)state;
  char want[64], got[XR_FLOAT_TEXT_MAX];
  for (int i = 0; i < 200000; i++) {
    uint64_t b = double_bits(i);
    double d;
    memcpy(&d, &b, sizeof d);
    snprintf(want, sizeof want, "%.17g", d);
    size_t n = xr_float_text(b, false, got);
    assert_int_equal(n, strlen(want));
    assert_string_equal(got, want);
    uint32_t f32 = (uint32_t)(double_bits(i) >> 32);
    float f;
    memcpy(&f, &f32, sizeof f);
    snprintf(want, sizeof want, "%.9g", (double)f);
    /* the high half of the register is not the float's */
    n = xr_float_text(next() << 32 | f32, true, got);
    assert_int_equal(n, strlen(want));
    assert_string_equal(got, want);
  }
  static const double edges[] = {0.0, 1.0, 1e16, 1e17, 9.9999999999999999e22, 0.0001,
                                 0.00001, 5e-324, 2.2250738585072014e-308,
                                 1.7976931348623157e308, 0.5, 2.5, 123456789012345678.0};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
    uint64_t b;
    memcpy(&b, &edges[i], sizeof b);
    snprintf(want, sizeof want, "%.17g", edges[i]);
    xr_float_text(b, false, got);
    assert_string_equal(got, want);
  }
}

static const char *json(uint8_t format, uint64_t bits) {
  static char out[XR_ARG_NUMBER_MAX];
  struct xr_arg_value v = {bits, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), format, 0, 0, 0};
  size_t n = xr_arg_number_json(&v, out);
  assert_int_equal(n, strlen(out));
  return out;
}

static void test_json(void **state) {
  (void)state;
  assert_string_equal(json(XR_ARGF_D, 0x8000000000000000ull), "-9223372036854775808");
  assert_string_equal(json(0, (uint64_t)-1), "-1");
  assert_string_equal(json(XR_ARGF_U, UINT64_MAX), "18446744073709551615");
  assert_string_equal(json(XR_ARGF_X, 0), "\"0x0\"");
  assert_string_equal(json(XR_ARGF_P, 0x7ffd12345678ull), "\"0x7ffd12345678\"");
  assert_string_equal(json(XR_ARGF_F, 0x8000000000000000ull), "-0.0");
  assert_string_equal(json(XR_ARGF_F, 0x4000000000000000ull), "2.0");
  assert_string_equal(json(XR_ARGF_F, 0x3ff199999999999aull), "1.1000000000000001");
  assert_string_equal(json(XR_ARGF_F, 0x54b249ad2594c37dull), "1e+100");
  assert_string_equal(json(XR_ARGF_F, 0x7ff8dead0000beefull), "\"nan:0x7ff8dead0000beef\"");
  assert_string_equal(json(XR_ARGF_F, 0x7ff0000000000000ull), "\"inf\"");
  assert_string_equal(json(XR_ARGF_F, 0xfff0000000000000ull), "\"-inf\"");
  assert_string_equal(json(XR_ARGF_F32, 0xdeadbeef7fa00123ull), "\"nan:0x7fa00123\"");
  assert_string_equal(json(XR_ARGF_F32, 0x3dcccccdull), "0.100000001");
  assert_string_equal(json(XR_ARGF_F32, 0x1ff800000ull), "\"-inf\"");
  assert_string_equal(json(XR_ARGF_F32, 0x80000000ull), "-0.0");
  assert_string_equal(json(99, 255), "\"0xff\"");
}

static void test_status_words(void **state) {
  (void)state;
  struct xr_arg_value v = {0, 0x11, XR_ARGF_S, XR_ARGS_OK, 0, 0};
  assert_null(xr_arg_status_word(&v));
  assert_true(xr_arg_has_text(&v));
  static const char *const words[] = {NULL, "null", "unreadable", "cut", "partial"};
  for (uint8_t s = XR_ARGS_NULL; s <= XR_ARGS_PARTIAL; s++) {
    v.status = s;
    assert_string_equal(xr_arg_status_word(&v), words[s]);
    assert_int_equal(xr_arg_has_text(&v), s == XR_ARGS_CUT || s == XR_ARGS_PARTIAL);
  }
  v.format = XR_ARGF_P;
  assert_null(xr_arg_status_word(&v));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_like_printf),
      cmocka_unit_test(test_json),
      cmocka_unit_test(test_status_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
