/* xr_sled_map_decode on hand-built maps: every sled version, unaligned
 * starts, id grouping, xray_fn_idx formats, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/objects/sled_map.h"

enum { ENTRY = 0, EXIT = 1, TAIL = 2, LOG_ARGS = 3, CUSTOM = 4, TYPED = 5 };

/* Room for 16 entries at any misalignment, plus an index. */
static unsigned char storage[16 * 32 + 64] __attribute__((aligned(64)));
static unsigned char idx_storage[16 * 16] __attribute__((aligned(16)));

/* Made-up code addresses: what matters is that they decode back. */
#define FN_A 0x401000u
#define FN_B 0x401100u
#define FN_C 0x402ff0u

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void put_entry(unsigned char *e, uint64_t sled, uint64_t fn, uint8_t kind,
                      uint8_t version, uint8_t always) {
  memset(e, 0, 32);
  if (version >= 2) {
    put64(e, sled - (uint64_t)(uintptr_t)e);
    put64(e + 8, fn - (uint64_t)(uintptr_t)(e + 8));
  } else {
    put64(e, sled);
    put64(e + 8, fn);
  }
  e[16] = kind;
  e[17] = always;
  e[18] = version;
}

/* Three functions, seven sleds: A {entry, exit}, B {entry, exit, exit},
 * C {log-args entry, tail}. Returns the end of the map. */
static unsigned char *build_three(unsigned char *m, uint8_t version) {
  put_entry(m + 0 * 32, FN_A, FN_A, ENTRY, version, 0);
  put_entry(m + 1 * 32, FN_A + 0x20, FN_A, EXIT, version, 0);
  put_entry(m + 2 * 32, FN_B, FN_B, ENTRY, version, 1);
  put_entry(m + 3 * 32, FN_B + 0x30, FN_B, EXIT, version, 1);
  put_entry(m + 4 * 32, FN_B + 0x50, FN_B, EXIT, version, 1);
  put_entry(m + 5 * 32, FN_C, FN_C, LOG_ARGS, version, 1);
  put_entry(m + 6 * 32, FN_C + 0x12, FN_C, TAIL, version, 1);
  return m + 7 * 32;
}

static void check_three(const struct xr_sled_map *map, uint8_t version) {
  assert_int_equal(map->sled_count, 7);
  assert_int_equal(map->function_count, 3);
  assert_int_equal(map->functions[0].address, FN_A);
  assert_int_equal(map->functions[0].first_sled, 0);
  assert_int_equal(map->functions[0].sled_count, 2);
  assert_int_equal(map->functions[1].address, FN_B);
  assert_int_equal(map->functions[1].first_sled, 2);
  assert_int_equal(map->functions[1].sled_count, 3);
  assert_int_equal(map->functions[2].address, FN_C);
  assert_int_equal(map->functions[2].first_sled, 5);
  assert_int_equal(map->functions[2].sled_count, 2);
  assert_int_equal(map->sleds[4].address, FN_B + 0x50);
  assert_int_equal(map->sleds[4].function, FN_B);
  assert_int_equal(map->sleds[4].kind, EXIT);
  assert_int_equal(map->sleds[4].always_instrument, 1);
  assert_int_equal(map->sleds[0].always_instrument, 0);
  assert_int_equal(map->sleds[5].kind, LOG_ARGS);
  assert_int_equal(map->sleds[6].kind, TAIL);
  assert_int_equal(map->sleds[6].version, version);
  assert_int_equal(map->min_sled, FN_A);
  assert_int_equal(map->max_sled, FN_C + 0x12);
  assert_int_equal(map->fn_idx_format, XR_FN_IDX_ABSENT);
}

static void decode_version(uint8_t version, size_t misalign) {
  unsigned char *m = storage + misalign;
  unsigned char *end = build_three(m, version);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, end, NULL, NULL, &map), 0);
  check_three(&map, version);
  xr_sled_map_free(&map);
  assert_null(map.sleds);
  assert_int_equal(map.function_count, 0);
}

static void test_version2_relative_aligned(void **s) { (void)s; decode_version(2, 0); }
static void test_version2_relative_odd_start(void **s) {
  (void)s;
  decode_version(2, 1);
  decode_version(2, 3);
  decode_version(2, 13);
}
static void test_version1_absolute(void **s) { (void)s; decode_version(1, 5); }
static void test_version0_absolute(void **s) { (void)s; decode_version(0, 0); }

static void test_mixed_versions(void **s) {
  (void)s;
  unsigned char *m = storage + 7;
  put_entry(m, FN_A, FN_A, ENTRY, 0, 0);
  put_entry(m + 32, FN_A + 8, FN_A, EXIT, 2, 0);
  put_entry(m + 64, FN_B, FN_B, CUSTOM, 1, 0);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, m + 96, NULL, NULL, &map), 0);
  assert_int_equal(map.function_count, 2);
  assert_int_equal(map.sleds[1].address, FN_A + 8);
  assert_int_equal(map.sleds[2].kind, CUSTOM);
  xr_sled_map_free(&map);
}

/* Like llvm-xray extract: a function that comes back after another one gets
 * a new id (ids count changes of function, not distinct functions). */
static void test_ids_count_changes_of_function(void **s) {
  (void)s;
  unsigned char *m = storage;
  put_entry(m, FN_A, FN_A, ENTRY, 2, 0);
  put_entry(m + 32, FN_B, FN_B, ENTRY, 2, 0);
  put_entry(m + 64, FN_A + 0x10, FN_A, EXIT, 2, 0);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, m + 96, NULL, NULL, &map), 0);
  assert_int_equal(map.function_count, 3);
  assert_int_equal(map.functions[2].address, FN_A);
  assert_int_equal(map.functions[2].first_sled, 2);
  xr_sled_map_free(&map);
}

static void test_single_entry(void **s) {
  (void)s;
  unsigned char *m = storage + 2;
  put_entry(m, FN_C, FN_C, TYPED, 2, 0);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, m + 32, NULL, NULL, &map), 0);
  assert_int_equal(map.function_count, 1);
  assert_int_equal(map.sleds[0].kind, TYPED);
  assert_int_equal(map.min_sled, FN_C);
  assert_int_equal(map.max_sled, FN_C);
  xr_sled_map_free(&map);
}

/* clang 14 -flto: {begin, end} absolute pointers into the map. */
static void test_fn_idx_absolute(void **s) {
  (void)s;
  unsigned char *m = storage + 1;
  unsigned char *end = build_three(m, 2);
  uintptr_t b = (uintptr_t)m;
  put64(idx_storage + 0, b);
  put64(idx_storage + 8, b + 2 * 32);
  put64(idx_storage + 16, b + 2 * 32);
  put64(idx_storage + 24, b + 5 * 32);
  put64(idx_storage + 32, b + 5 * 32);
  put64(idx_storage + 40, b + 7 * 32);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, end, idx_storage, idx_storage + 48, &map), 0);
  assert_int_equal(map.fn_idx_format, XR_FN_IDX_ABSOLUTE);
  assert_int_equal(map.function_count, 3);
  xr_sled_map_free(&map);
}

/* clang 19: {begin relative to the element, number of sleds}. */
static void test_fn_idx_relative_with_count(void **s) {
  (void)s;
  unsigned char *m = storage + 3;
  unsigned char *end = build_three(m, 2);
  const uint64_t first[3] = {0, 2, 5}, count[3] = {2, 3, 2};
  for (int k = 0; k < 3; k++) {
    unsigned char *e = idx_storage + 16 * k;
    put64(e, (uint64_t)(uintptr_t)(m + 32 * first[k]) - (uint64_t)(uintptr_t)e);
    put64(e + 8, count[k]);
  }
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, end, idx_storage, idx_storage + 48, &map), 0);
  assert_int_equal(map.fn_idx_format, XR_FN_IDX_RELATIVE);
  xr_sled_map_free(&map);
}

/* An index that disagrees is ignored: the map still decodes. */
static void test_fn_idx_inconsistent_is_ignored(void **s) {
  (void)s;
  unsigned char *m = storage;
  unsigned char *end = build_three(m, 2);
  uintptr_t b = (uintptr_t)m;
  put64(idx_storage + 0, b);
  put64(idx_storage + 8, b + 3 * 32); /* wrong: A has 2 sleds */
  put64(idx_storage + 16, b + 3 * 32);
  put64(idx_storage + 24, b + 5 * 32);
  put64(idx_storage + 32, b + 5 * 32);
  put64(idx_storage + 40, b + 7 * 32);
  struct xr_sled_map map;
  assert_int_equal(xr_sled_map_decode(m, end, idx_storage, idx_storage + 48, &map), 0);
  assert_int_equal(map.fn_idx_format, XR_FN_IDX_INCONSISTENT);
  check_three(&(struct xr_sled_map){.sleds = map.sleds, .sled_count = map.sled_count,
                                    .functions = map.functions,
                                    .function_count = map.function_count,
                                    .min_sled = map.min_sled, .max_sled = map.max_sled},
              2);
  xr_sled_map_free(&map);
  /* wrong number of elements, and a size that is not a multiple of 16 */
  assert_int_equal(xr_sled_map_decode(m, end, idx_storage, idx_storage + 32, &map), 0);
  assert_int_equal(map.fn_idx_format, XR_FN_IDX_INCONSISTENT);
  xr_sled_map_free(&map);
  assert_int_equal(xr_sled_map_decode(m, end, idx_storage, idx_storage + 40, &map), 0);
  assert_int_equal(map.fn_idx_format, XR_FN_IDX_INCONSISTENT);
  xr_sled_map_free(&map);
}

static void expect_rejected(const void *b, const void *e) {
  struct xr_sled_map map;
  memset(&map, 0xAB, sizeof map);
  assert_int_equal(xr_sled_map_decode(b, e, NULL, NULL, &map), -1);
  assert_null(map.sleds);
  assert_null(map.functions);
  assert_int_equal(map.sled_count, 0);
  assert_int_equal(map.function_count, 0);
}

static void test_bad_input(void **s) {
  (void)s;
  unsigned char *m = storage + 1;
  unsigned char *end = build_three(m, 2);
  expect_rejected(NULL, NULL);
  expect_rejected(m, m);                   /* empty */
  expect_rejected(end, m);                 /* reversed */
  expect_rejected(m, end - 1);             /* truncated entry */
  expect_rejected(m, m + 31);
  m[3 * 32 + 18] = 7; /* unknown version */
  expect_rejected(m, end);
  build_three(m, 2);
  m[4 * 32 + 16] = 6; /* unknown kind */
  expect_rejected(m, end);
  build_three(m, 1);
  put64(m + 2 * 32, 0); /* null absolute address */
  expect_rejected(m, end);
  memset(m, 0xFF, 7 * 32); /* garbage */
  expect_rejected(m, end);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version2_relative_aligned),
      cmocka_unit_test(test_version2_relative_odd_start),
      cmocka_unit_test(test_version1_absolute),
      cmocka_unit_test(test_version0_absolute),
      cmocka_unit_test(test_mixed_versions),
      cmocka_unit_test(test_ids_count_changes_of_function),
      cmocka_unit_test(test_single_entry),
      cmocka_unit_test(test_fn_idx_absolute),
      cmocka_unit_test(test_fn_idx_relative_with_count),
      cmocka_unit_test(test_fn_idx_inconsistent_is_ignored),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
