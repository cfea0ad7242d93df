#define _GNU_SOURCE
/* ELF symbol lookup on this test binary itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/symbols.h"

int main(void);

__attribute__((noinline, used)) int xr_test_known_function(int x) {
  return x * 3 + 1;
}
__attribute__((noinline, used)) static int local_helper_for_lookup(int x) {
  return x ^ 0x55;
}

static void finds_own_functions(void **state) {
  (void)state;
  struct xr_symbols s;
  assert_int_equal(xr_symbols_open(&s, NULL, xr_symbols_self_bias()), 0);
  assert_true(s.count > 10);
  uintptr_t a = (uintptr_t)&xr_test_known_function;
  assert_string_equal(xr_symbols_lookup(&s, a), "xr_test_known_function");
  assert_string_equal(xr_symbols_lookup(&s, a + 1), "xr_test_known_function");
  assert_string_equal(xr_symbols_lookup(&s, (uintptr_t)&local_helper_for_lookup),
                      "local_helper_for_lookup");
  assert_string_equal(xr_symbols_lookup(&s, (uintptr_t)&main), "main");
  assert_null(xr_symbols_lookup(&s, 16));
  xr_symbols_close(&s);
  assert_null(xr_symbols_lookup(&s, a));
}

static int fake_main_id;
static uintptr_t addr_of(int32_t id) {
  if (id == 1)
    return (uintptr_t)&xr_test_known_function;
  if (id == 2)
    return 0x1234;
  fake_main_id = id;
  return 0;
}

static void names_table(void **state) {
  (void)state;
  struct xr_names n;
  assert_int_equal(xr_names_build(&n, 3, addr_of, NULL, xr_symbols_self_bias()), 0);
  assert_string_equal(xr_names_get(&n, 1), "xr_test_known_function");
  assert_string_equal(xr_names_get(&n, 2), "fn2@0x1234");
  assert_string_equal(xr_names_get(&n, 3), "fn3@0x0");
  assert_string_equal(xr_names_get(&n, 4), "fn4");
  xr_names_free(&n);
}

static void rejects_bad_files(void **state) {
  (void)state;
  struct xr_symbols s;
  char path[] = "/tmp/xr_symbols_garbageXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  char junk[4096];
  for (size_t i = 0; i < sizeof(junk); i++)
    junk[i] = (char)(i * 7);
  memcpy(junk, "\177ELF\002\001", 6); /* looks like ELF, headers are junk */
  assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
  close(fd);
  assert_int_equal(xr_symbols_open(&s, path, 0), -1);
  assert_null(xr_symbols_lookup(&s, 0x1000));
  unlink(path);
  assert_int_equal(xr_symbols_open(&s, "/nonexistent/file", 0), -1);
  assert_int_equal(xr_symbols_open(&s, "/proc/self/status", 0), -1);
  /* names still work without symbols */
  struct xr_names n;
  assert_int_equal(xr_names_build(&n, 1, addr_of, "/nonexistent", 0), 0);
  char want[64];
  snprintf(want, sizeof(want), "fn1@0x%llx",
           (unsigned long long)(uintptr_t)&xr_test_known_function);
  assert_string_equal(xr_names_get(&n, 1), want);
  xr_names_free(&n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(finds_own_functions),
      cmocka_unit_test(names_table),
      cmocka_unit_test(rejects_bad_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
