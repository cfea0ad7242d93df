/* xrayctl report's percentiles (tools/xrayctl/latency_hist.c): values below
 * 32 come back exactly; larger ones as the middle of their bucket, within
 * 1/64 of the value; ranks follow the values' order; a function's rows come
 * from the pool only for the powers of two it uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "xrayctl/latency_hist.h"

static void small_values_exact(void **state) {
  (void)state;
  struct ctl_hist_pool pool = {0};
  struct ctl_hist h = {{0}};
  for (uint64_t v = 0; v < 32; v++)
    assert_true(ctl_hist_add(&pool, &h, 31 - v));
  for (uint64_t k = 0; k < 32; k++)
    assert_int_equal(ctl_hist_at(&pool, &h, k), k);
  assert_int_equal(pool.n, 1);
  ctl_hist_pool_free(&pool);
}

static void large_values_within_a_64th(void **state) {
  (void)state;
  static const uint64_t values[] = {32,        33,          63,        64,
                                    100,       1000,        4095,      4096,
                                    123456789, 1ull << 40, UINT64_MAX, 999999999999ull};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    struct ctl_hist_pool pool = {0};
    struct ctl_hist h = {{0}};
    assert_true(ctl_hist_add(&pool, &h, values[i]));
    uint64_t got = ctl_hist_at(&pool, &h, 0), v = values[i];
    uint64_t err = got > v ? got - v : v - got;
    assert_true(err <= v / 64);
    ctl_hist_pool_free(&pool);
  }
}

static void ranks_in_order(void **state) {
  (void)state;
  struct ctl_hist_pool pool = {0};
  struct ctl_hist h = {{0}};
  /* 1000 calls of 10 ticks, 100 of 5000, 10 of 1,000,000 */
  for (int i = 0; i < 1000; i++)
    ctl_hist_add(&pool, &h, 10);
  for (int i = 0; i < 100; i++)
    ctl_hist_add(&pool, &h, 5000);
  for (int i = 0; i < 10; i++)
    ctl_hist_add(&pool, &h, 1000000);
  assert_int_equal(ctl_hist_at(&pool, &h, 0), 10);
  assert_int_equal(ctl_hist_at(&pool, &h, 999), 10);
  uint64_t mid = ctl_hist_at(&pool, &h, 1000);
  assert_true(mid >= 5000 - 5000 / 64 && mid <= 5000 + 5000 / 64);
  assert_int_equal(ctl_hist_at(&pool, &h, 1099), mid);
  uint64_t top = ctl_hist_at(&pool, &h, 1109);
  assert_true(top >= 1000000 - 1000000 / 64 && top <= 1000000 + 1000000 / 64);
  assert_int_equal(pool.n, 3); /* three powers of two, three rows */
  ctl_hist_pool_free(&pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(small_values_exact),
      cmocka_unit_test(large_values_within_a_64th),
      cmocka_unit_test(ranks_in_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
