/* The values of xrayctl report's slowest calls (call_values.c): the open
 * calls' values kept and ended in stack order, a function's slowest calls
 * kept (ties: the first seen first), merged, and printed exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "xrayctl/call_values.h"

static struct xr_arg_call one(uint8_t what, uint8_t format, uint64_t bits, uint8_t status,
                              const char *text) {
  struct xr_arg_call c;
  memset(&c, 0, sizeof c);
  size_t len = strlen(text);
  c.v[c.count++] = (struct xr_arg_value){bits, what, format, status, (uint8_t)len, 0};
  memcpy(c.text, text, len);
  return c;
}

static void test_open_calls(void **state) {
  (void)state;
  struct ctl_open_values o = {0};
  struct xr_arg_call a = one(0x11, XR_ARGF_D, 1, 0, ""), b = one(0x11, XR_ARGF_D, 2, 0, "");
  uint32_t ha = ctl_values_keep(&o, &a);
  uint32_t hb = ctl_values_keep(&o, &b);
  assert_int_equal(ha, 1);
  assert_int_equal(hb, 2);
  assert_int_equal(ctl_values_end(&o, hb)->v[0].bits, 2);
  uint32_t hc = ctl_values_keep(&o, &b);
  assert_int_equal(hc, 2);
  /* a's call ends while c's was left open (its exit lost): both go */
  assert_int_equal(ctl_values_end(&o, ha)->v[0].bits, 1);
  assert_int_equal(o.n, 0);
  assert_null(ctl_values_end(&o, 0));
  ctl_values_free(&o);
}

static char *printed(const struct ctl_slowest *s, uint64_t hz) {
  static char buf[4096];
  memset(buf, 0, sizeof buf);
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  assert_non_null(f);
  ctl_slowest_print(f, s, hz);
  fclose(f);
  return buf;
}

static void test_slowest(void **state) {
  (void)state;
  struct ctl_slowest *s = NULL, *t = NULL;
  struct xr_arg_call arg = one(0x12, XR_ARGF_S, 0x1000, XR_ARGS_CUT, "a\"b\\\n");
  struct xr_arg_call ret = one(0x30, XR_ARGF_X, 0x1f, 0, "");
  struct xr_arg_call nul = one(0x11, XR_ARGF_S, 0, XR_ARGS_NULL, "");
  struct xr_arg_call nan = one(0x21, XR_ARGF_F, 0x7ff8000000000001ull, 0, "");
  assert_true(ctl_slowest_offer(&s, 2, 100, &arg, &ret));
  assert_true(ctl_slowest_offer(&s, 2, 50, &nul, NULL));
  assert_true(ctl_slowest_offer(&s, 2, 100, NULL, &ret)); /* a tie: after */
  assert_true(ctl_slowest_offer(&s, 2, 10, &nan, NULL));  /* not kept */
  assert_string_equal(printed(s, 1000000000u),
                      "           100  arg2=\"a\\\"b\\\\\\x0a\"(cut) retval=0x1f\n"
                      "           100  retval=0x1f\n");
  assert_true(ctl_slowest_offer(&t, 2, 3000, &nan, NULL));
  assert_true(ctl_slowest_offer(&t, 2, 20, &nul, NULL));
  assert_true(ctl_slowest_merge(&s, t, 2));
  /* 3000 ticks at 1 kHz: 3 s */
  assert_string_equal(printed(s, 1000),
                      "    3000000000  fparg1=nan:0x7ff8000000000001\n"
                      "     100000000  arg2=\"a\\\"b\\\\\\x0a\"(cut) retval=0x1f\n");
  ctl_slowest_free(t);
  t = NULL;
  assert_true(ctl_slowest_offer(&t, 1, 7, &nul, NULL));
  assert_string_equal(printed(t, 1000000000u), "             7  arg1=(null 0x0)\n");
  assert_true(ctl_slowest_offer(&t, 0, 70, &nul, NULL));
  ctl_slowest_free(s);
  ctl_slowest_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_calls),
      cmocka_unit_test(test_slowest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
