/* The values of a call in the files (core/modes/arg_values.h): the names,
 * and the FDR custom event's text, byte for byte and back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/modes/arg_values.h"

static void names(void **state) {
  (void)state;
  char buf[8];
  assert_string_equal(xr_arg_name(0, buf), "arg1");
  assert_string_equal(xr_arg_name(XR_ARG_WHAT(XR_ARG_KIND_INT, 6), buf), "arg6");
  assert_string_equal(xr_arg_name(XR_ARG_WHAT(XR_ARG_KIND_FP, 8), buf), "fparg8");
  assert_string_equal(xr_arg_name(XR_ARG_WHAT(XR_ARG_KIND_RET, 0), buf), "retval");
  assert_string_equal(xr_arg_format_name(XR_ARGF_F32), "f32");
  assert_null(xr_arg_format_name(8));
  assert_string_equal(xr_arg_status_name(XR_ARGS_PARTIAL), "partial");
  assert_null(xr_arg_status_name(5));
}

/* A call with a retval /x and two strings (one cut at the bound, one
 * NULL) encodes to exactly this text and decodes to the same values. */
static void event_round_trip(void **state) {
  (void)state;
  struct xr_arg_call c = {0};
  c.v[0] = (struct xr_arg_value){0xdeadbeefULL, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_X, 0, 0, 0};
  c.v[1] = (struct xr_arg_value){0x7ffd5a0c1e40ULL, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_S,
                                 XR_ARGS_OK, 2, 0};
  memcpy(c.text, "h\xff", 2);
  c.v[2] = (struct xr_arg_value){0, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_S, XR_ARGS_NULL, 0, 2};
  c.count = 3;
  c.strings = 2;
  unsigned char out[XR_ARGS_EVENT_MAX];
  size_t n = xr_args_event_encode(&c, c.v, 3, out, sizeof out);
  const char *want = "xray-args retval/x=00000000deadbeef arg2/s=00007ffd5a0c1e40:ok:68ff"
                     " arg3/s=0000000000000000:null:";
  assert_int_equal(n, strlen(want));
  assert_memory_equal(out, want, n);
  for (size_t i = 0; i < n; i++)
    assert_true(out[i] >= 0x20 && out[i] < 0x7f); /* printable: llvm-xray shows it whole */

  struct xr_arg_call back = {0};
  back.v[0] = (struct xr_arg_value){5, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_S, XR_ARGS_OK, 3, 0};
  memcpy(back.text, "abc", 3);
  back.count = 1;
  back.strings = 1;
  assert_true(xr_args_event_decode(out, n, &back));
  assert_int_equal(back.count, 4);
  assert_int_equal(back.strings, 3);
  assert_memory_equal(back.text, "abc", 3); /* the values before keep their text */
  for (int i = 0; i < 3; i++) {
    assert_int_equal(back.v[i + 1].bits, c.v[i].bits);
    assert_int_equal(back.v[i + 1].what, c.v[i].what);
    assert_int_equal(back.v[i + 1].format, c.v[i].format);
    assert_int_equal(back.v[i + 1].status, c.v[i].status);
    assert_int_equal(back.v[i + 1].len, c.v[i].len);
  }
  assert_int_equal(back.v[2].text, 3);
  assert_memory_equal(back.text + 3, "h\xff", 2);
}

/* The largest event fits XR_ARGS_EVENT_MAX; a smaller buffer is refused. */
static void event_bound(void **state) {
  (void)state;
  struct xr_arg_call c = {0};
  for (int i = 0; i < XR_ARGS_MAX; i++) {
    bool s = i < XR_ARG_STRINGS_MAX;
    c.v[i] = (struct xr_arg_value){~0ULL, XR_ARG_WHAT(XR_ARG_KIND_FP, 8), s ? XR_ARGF_S : XR_ARGF_F32,
                                   s ? XR_ARGS_UNREADABLE : 0, s ? XR_ARG_STRING_MAX : 0,
                                   (uint16_t)(s ? i * XR_ARG_STRING_MAX : 0)};
  }
  c.count = XR_ARGS_MAX;
  unsigned char out[XR_ARGS_EVENT_MAX];
  size_t n = xr_args_event_encode(&c, c.v, XR_ARGS_MAX, out, sizeof out);
  assert_true(n > 0 && n <= sizeof out);
  assert_int_equal(xr_args_event_encode(&c, c.v, XR_ARGS_MAX, out, sizeof out - 1), 0);
  struct xr_arg_call back = {0};
  assert_true(xr_args_event_decode(out, n, &back));
  assert_int_equal(back.count, XR_ARGS_MAX);
}

/* Anything else is refused, and the call is left as it was. */
static void event_refuses(void **state) {
  (void)state;
  static const char *const bad[] = {
      "xray-arg",                                    /* not the tag */
      "xray-unwound 3",                              /* another event */
      "xray-args retval/x=00000000deadbee",          /* 15 digits */
      "xray-args retval/x=00000000deadbeefX",        /* trailing byte */
      "xray-args retval/q=00000000deadbeef",         /* no such format */
      "xray-args arg9/d=0000000000000001",           /* no such register */
      "xray-args arg0/d=0000000000000001",
      "xray-args fparg/d=0000000000000001",
      "xray-args arg1/s=0000000000000001:fine:",     /* no such status */
      "xray-args arg1/s=0000000000000001:ok:6",      /* half a byte */
      "xray-args arg1/s=0000000000000001:ok:zz",
      "xray-args arg1/s=0000000000000001",           /* a string without status */
      "xray-args  retval/x=00000000deadbeef",        /* two blanks */
      "xray-args retval/X=00000000DEADBEEF",         /* upper case */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct xr_arg_call c = {0};
    c.count = 1;
    c.v[0].bits = 42;
    assert_false(xr_args_event_decode(bad[i], strlen(bad[i]), &c));
    assert_int_equal(c.count, 1);
    assert_int_equal(c.v[0].bits, 42);
  }
  /* 65 bytes of text: over the bound */
  char big[256] = "xray-args arg1/s=0000000000000001:cut:";
  for (int i = 0; i < 65; i++)
    strcat(big, "41");
  struct xr_arg_call c = {0};
  assert_false(xr_args_event_decode(big, strlen(big), &c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names),
      cmocka_unit_test(event_round_trip),
      cmocka_unit_test(event_bound),
      cmocka_unit_test(event_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
