#define _GNU_SOURCE
/* ELF symbol lookup on this test binary itself, and the name table built
 * from it for registered objects (lib/core/names/names.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/names/names.h"
#include "core/names/symbols.h"
#include "xray/xray_interface.h"

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

/* A fake object's map: only the function addresses matter to names. */
static struct xr_function fake_functions[3];
static struct xr_sled_map fake_map = {.functions = fake_functions, .function_count = 3};

static void names_table(void **state) {
  (void)state;
  /* The runtime up (object 0, empty: no map here), as in a program, which
   * links the archive whole; this test links it plainly, and nothing it
   * calls pulls in init.c's start-up. */
  __xray_init();
  fake_functions[0].address = (uintptr_t)&xr_test_known_function;
  fake_functions[1].address = 0x1234;
  fake_functions[2].address = 0;
  /* as a registered object (slot 1): this very file is its ELF */
  assert_int_equal(xr_names_add_object(1, &fake_map, NULL, xr_symbols_self_bias()), 0);
  const struct xr_name_table *t;
  assert_int_equal(xr_names_table(1, &t), XR_NAMES_OK);
  assert_int_equal(t->count, 3);
  assert_int_equal(t->unnamed, 2);
  assert_string_equal(t->entries[0].name, "xr_test_known_function");
  assert_string_equal(t->entries[0].symbol, "xr_test_known_function");
  assert_null(t->entries[1].symbol);
  assert_int_equal(t->entries[1].address, 0x1234);
  /* packed ids: object 1 in the top 8 bits */
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 1), "xr_test_known_function");
  /* a shared object's made-up names: file and offset ("?": no path) */
  char want2[64], want3[64], want5678[64];
  uintptr_t bias = xr_symbols_self_bias();
  snprintf(want2, sizeof want2, "fn2@?+0x%llx", (unsigned long long)(0x1234 - bias));
  snprintf(want3, sizeof want3, "fn3@?+0x%llx", (unsigned long long)(0 - bias));
  snprintf(want5678, sizeof want5678, "fn2@?+0x%llx", (unsigned long long)(0x5678 - bias));
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 2), want2);
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 3), want3);
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 4), "fn16777220");
  assert_string_equal(xr_names_get_name(NULL, (5 << 24) | 1), "fn83886081");
  /* a loaded table stays as it is */
  fake_functions[1].address = 0x5678;
  assert_int_equal(xr_names_add_object(1, &fake_map, NULL, xr_symbols_self_bias()), 0);
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 2), want2);
  /* deregistered, then its id reused: built afresh */
  const char *old = t->entries[1].name;
  xr_names_forget_object(1);
  /* not loaded any more; this test program has no map, so the registry
   * holds object 0 only (empty): object 1 was never registered */
  assert_int_equal(xr_names_table(1, &t), XR_NAMES_INVALID);
  assert_int_equal(xr_names_add_object(1, &fake_map, NULL, xr_symbols_self_bias()), 0);
  assert_string_equal(xr_names_get_name(NULL, (1 << 24) | 2), want5678);
  assert_string_equal(old, want2); /* the old strings stay valid */
  assert_int_equal(xr_names_add_object(-1, &fake_map, NULL, 0), XR_NAMES_INVALID);
  assert_int_equal(xr_names_add_object(256, &fake_map, NULL, 0), XR_NAMES_INVALID);
  assert_int_equal(xr_names_table(7, &t), XR_NAMES_INVALID); /* never added */
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
  fake_functions[0].address = (uintptr_t)&xr_test_known_function;
  assert_int_equal(xr_names_add_object(2, &fake_map, "/nonexistent", 0), 0);
  char want[64];
  snprintf(want, sizeof(want), "fn1@nonexistent+0x%llx",
           (unsigned long long)(uintptr_t)&xr_test_known_function);
  assert_string_equal(xr_names_get_name(NULL, (2 << 24) | 1), want);
  const struct xr_name_table *t;
  assert_int_equal(xr_names_table(2, &t), XR_NAMES_OK);
  assert_string_equal(t->object_path, "/nonexistent");
  assert_int_equal(t->unnamed, 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(finds_own_functions),
      cmocka_unit_test(names_table),
      cmocka_unit_test(rejects_bad_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
