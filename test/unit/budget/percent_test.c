/* A budget's percent: xray_budget's strict reading (budget_options.c), its
 * spelling in messages, and the control protocol's one spelling
 * (control_proto.c), which xrayctl sends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "budget/budget_options.h"
#include "control/control_proto.h"

static void option_accepts_decimals(void **state) {
  (void)state;
  static const struct {
    const char *text;
    double value;
  } good[] = {{"0", 0},         {"2", 2},       {"0.5", 0.5},         {"12.25", 12.25},
              {"100", 100},     {"007", 7},     {"2.000000", 2},      {"0.000001", 0.000001},
              {"100.0", 100},   {"99.999999", 99.999999}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    double v = -1;
    assert_true(xr_budget_parse_percent(good[i].text, &v));
    assert_true(v == good[i].value);
  }
}

static void option_refuses_the_rest(void **state) {
  (void)state;
  static const char *const bad[] = {"",     "-1",   "+2",       "2%",   " 2",  "2 ",
                                    "1e1",  ".5",   "2.",       "2..5", "0x10", "100.1",
                                    "101",  "1000", "0.0000001", "nan", "inf",  "2,5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double v = 42;
    assert_false(xr_budget_parse_percent(bad[i], &v));
    assert_true(v == 42); /* untouched */
  }
  double v;
  assert_false(xr_budget_parse_percent(NULL, &v));
}

static void message_spelling(void **state) {
  (void)state;
  char buf[32];
  xr_budget_percent_text(2, buf, sizeof buf);
  assert_string_equal(buf, "2");
  xr_budget_percent_text(0.5, buf, sizeof buf);
  assert_string_equal(buf, "0.5");
  xr_budget_percent_text(12.25, buf, sizeof buf);
  assert_string_equal(buf, "12.25");
  xr_budget_percent_text(0.005, buf, sizeof buf);
  assert_string_equal(buf, "0.005");
  xr_budget_percent_text(100, buf, sizeof buf);
  assert_string_equal(buf, "100");
  xr_budget_percent_text(1.0004, buf, sizeof buf); /* 3 decimals at most */
  assert_string_equal(buf, "1");
  xr_budget_percent_text(12.25, buf, 3); /* cut, terminated */
  assert_string_equal(buf, "12");
}

static void wire_spelling(void **state) {
  (void)state;
  static const struct {
    const char *text;
    uint32_t thousandths;
  } good[] = {{"0", 0}, {"2", 2000}, {"0.5", 500}, {"0.005", 5}, {"12.25", 12250},
              {"100", 100000}, {"99.999", 99999}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint32_t t = 7;
    assert_true(xr_ctl_percent(good[i].text, &t));
    assert_int_equal(t, good[i].thousandths);
  }
  /* one spelling per value: no leading or trailing zero, at most 3 decimals */
  static const char *const bad[] = {"",    "00",   "02",   "2.0",  "0.50", "2.",
                                    ".5",  "100.5", "101", "1000", "0.0005", "-1",
                                    "2%",  " 2",   "1e2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint32_t t = 7;
    assert_false(xr_ctl_percent(bad[i], &t));
    assert_int_equal(t, 7);
  }
}

static void budget_request(void **state) {
  (void)state;
  char ok[] = "xray/1 budget 0.5\n";
  struct xr_ctl_request rq;
  const char *why = NULL;
  assert_int_equal(xr_ctl_parse(ok, strlen(ok), &rq, &why), 0);
  assert_int_equal(rq.verb, XR_CTL_BUDGET);
  assert_int_equal(rq.argc, 1);
  assert_string_equal(rq.argv[0], "0.5");
  assert_int_equal(rq.thousandths, 500);
  char bad[] = "xray/1 budget 2.50\n";
  assert_int_equal(xr_ctl_parse(bad, strlen(bad), &rq, &why), -1);
  assert_string_equal(why, "percent out of range (0 to 100, e.g. 2 or 0.5)");
  char none[] = "xray/1 budget\n";
  assert_int_equal(xr_ctl_parse(none, strlen(none), &rq, &why), -1);
  assert_string_equal(why, "wrong number of arguments");
  char two[] = "xray/1 budget 1 2\n";
  assert_int_equal(xr_ctl_parse(two, strlen(two), &rq, &why), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(option_accepts_decimals), cmocka_unit_test(option_refuses_the_rest),
      cmocka_unit_test(message_spelling),        cmocka_unit_test(wire_spelling),
      cmocka_unit_test(budget_request),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
