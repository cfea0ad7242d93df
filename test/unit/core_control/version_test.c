/* The version, one number everywhere: the generated <xray/xray_version.h>
 * (its string, its parts, its comparable number), __xray_runtime_version()
 * of the archive, and project(... VERSION) of the top-level CMakeLists.txt
 * (given here by CMake as XR_TEST_PROJECT_VERSION). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "xray/xray_version.h"

/* Usable in #if: integer constant expressions. */
#if XRAY_RUNTIME_VERSION_NUMBER < XRAY_RUNTIME_VERSION_ENCODE(0, 2, 0)
#error "this test is of version 0.2.0 and later"
#endif

static void header_and_archive_agree(void **state) {
  (void)state;
  const char *v = __xray_runtime_version();
  assert_non_null(v);
  assert_string_equal(v, XRAY_RUNTIME_VERSION);
  assert_string_equal(v, XR_TEST_PROJECT_VERSION);
  assert_ptr_equal(v, __xray_runtime_version()); /* static, the same each call */
}

static void parts_make_the_string(void **state) {
  (void)state;
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", XRAY_RUNTIME_VERSION_MAJOR,
           XRAY_RUNTIME_VERSION_MINOR, XRAY_RUNTIME_VERSION_PATCH);
  assert_string_equal(parts, XRAY_RUNTIME_VERSION);
}

static void number_orders_versions(void **state) {
  (void)state;
  assert_int_equal(XRAY_RUNTIME_VERSION_NUMBER,
                   XRAY_RUNTIME_VERSION_MAJOR * 1000000L +
                       XRAY_RUNTIME_VERSION_MINOR * 1000L + XRAY_RUNTIME_VERSION_PATCH);
  assert_int_equal(XRAY_RUNTIME_VERSION_ENCODE(0, 2, 0), 2000);
  assert_true(XRAY_RUNTIME_VERSION_ENCODE(0, 10, 0) > XRAY_RUNTIME_VERSION_ENCODE(0, 9, 999));
  assert_true(XRAY_RUNTIME_VERSION_ENCODE(1, 0, 0) > XRAY_RUNTIME_VERSION_ENCODE(0, 999, 999));
  assert_true(XRAY_RUNTIME_VERSION_NUMBER > XRAY_RUNTIME_VERSION_ENCODE(0, 1, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(header_and_archive_agree),
      cmocka_unit_test(parts_make_the_string),
      cmocka_unit_test(number_orders_versions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
