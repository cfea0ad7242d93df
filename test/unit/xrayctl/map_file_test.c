/* xrayctl's reader of the object map (tools/xrayctl/map_file.c): the
 * runtime's packed and dense maps are read whole (names with spaces, of
 * 40,000 bytes, negative packed ids); every malformed line is refused
 * with its number and what is wrong; duplicates and the precedence of the
 * map over -m through ctl_names_open. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "xrayctl/fn_names.h"
#include "xrayctl/map_file.h"

#define PACKED "# XRay object map of xray-log.app.a1b2c3: function <packed id> <object> <function> <name>\n"
#define DENSE                                                                               \
  "# XRay object map of xray-log.app.a1b2c3: function <dense id = id-base + function> "   \
  "<object> <function> <name>\n"
#define OBJ0 "object 0 loaded base 0x55fc93a1d000 functions 3 build-id 5a10 id-base 0 path /home/me/app\n"
#define OBJ1 "object 1 unloaded base 0x7fd674e4f000 functions 2 build-id - id-base 3 path /a path/lib.so\n"

/* A file holding text (n bytes), positioned at its start. */
static int file_of(const char *text, size_t n) {
  int fd = memfd_create("map", 0);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, n), (ssize_t)n);
  assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
  return fd;
}

struct seen {
  int count;
  int32_t ids[8];
  char names[8][64];
  size_t long_len;
};

static int remember(void *ctx, int32_t id, const char *name, size_t len) {
  struct seen *s = ctx;
  assert_int_equal(strlen(name), len); /* handed on NUL-terminated */
  if (len > 1000)
    s->long_len = len;
  if (s->count < 8) {
    s->ids[s->count] = id;
    snprintf(s->names[s->count], sizeof s->names[0], "%s", len > 1000 ? "long" : name);
  }
  s->count++;
  return CTL_MAP_GO_ON;
}

/* Reads text; returns the reader's status, err its message. */
static int read_text(const char *text, struct seen *s, struct ctl_map_info *info, char *err,
                     size_t cap) {
  int fd = file_of(text, strlen(text));
  memset(s, 0, sizeof *s);
  err[0] = '\0';
  int rc = ctl_map_read(fd, remember, s, info, err, cap);
  close(fd);
  return rc;
}

static void packed_map(void **state) {
  (void)state;
  struct seen s;
  struct ctl_map_info info;
  char err[256];
  assert_int_equal(read_text(PACKED OBJ0 OBJ1
                             "object 128 loaded base 0x1000 functions 1 build-id - id-base - path -\n"
                             "function 1 0 1 exe_leaf\n"
                             "function 2 0 2 std::vector<int, std::allocator<int> >::size() const\n"
                             "function 16777217 1 1 second_mul\n"
                             "function -2147483647 128 1 object_128\n",
                             &s, &info, err, sizeof err),
                   0);
  assert_false(info.dense);
  assert_int_equal(info.functions, 4);
  assert_int_equal(s.count, 4);
  assert_int_equal(s.ids[0], 1);
  assert_string_equal(s.names[0], "exe_leaf");
  assert_string_equal(s.names[1], "std::vector<int, std::allocator<int> >::size() const");
  assert_int_equal(s.ids[2], 16777217);
  assert_int_equal(s.ids[3], INT32_MIN + 1); /* (128 << 24) | 1 */
  assert_string_equal(s.names[3], "object_128");
}

static void dense_map_and_long_name(void **state) {
  (void)state;
  size_t name_len = 40000;
  size_t cap = sizeof DENSE OBJ0 OBJ1 + name_len + 256;
  char *text = malloc(cap);
  assert_non_null(text);
  int n = snprintf(text, cap, DENSE OBJ0 OBJ1 "function 4 1 1 second_mul\nfunction 1 0 1 ");
  memset(text + n, 'x', name_len);
  strcpy(text + n + name_len, "\n");
  struct seen s;
  struct ctl_map_info info;
  char err[256];
  assert_int_equal(read_text(text, &s, &info, err, sizeof err), 0);
  assert_true(info.dense);
  assert_int_equal(s.count, 2);
  assert_int_equal(s.ids[0], 4);
  assert_int_equal(s.long_len, name_len);
  free(text);
}

static void expect_error(const char *text, const char *message) {
  struct seen s;
  struct ctl_map_info info;
  char err[512];
  assert_int_equal(read_text(text, &s, &info, err, sizeof err), -1);
  assert_string_equal(err, message);
}

static void malformed_lines(void **state) {
  (void)state;
  expect_error("", "line 1: empty file: not an XRay object map");
  expect_error("# XRay object map of x\n",
               "line 1: not the header of an XRay object map ('# XRay object map of <log>: "
               "function <packed id> <object> <function> <name>' or its dense form)");
  expect_error("# XRay object map of : function <packed id> <object> <function> <name>\n",
               "line 1: not the header of an XRay object map ('# XRay object map of <log>: "
               "function <packed id> <object> <function> <name>' or its dense form)");
  expect_error(PACKED OBJ0 "function 1 0 1 cut", "line 3: cut short: the file does not end with a newline");
  expect_error(PACKED "\n", "line 2: neither an 'object' nor a 'function' line");
  expect_error(PACKED "functions 1 0 1 x\n", "line 2: neither an 'object' nor a 'function' line");
  expect_error(PACKED OBJ0 OBJ0, "line 3: object 0 is described twice");
  expect_error(PACKED "object 256 loaded base 0x1 functions 1 build-id - id-base 0 path p\n",
               "line 2: object id is not a number from 0 to 255");
  expect_error(PACKED "object 01 loaded base 0x1 functions 1 build-id - id-base 0 path p\n",
               "line 2: object id is not a number from 0 to 255");
  expect_error(PACKED "object 1 gone base 0x1 functions 1 build-id - id-base 0 path p\n",
               "line 2: object 1: expected 'loaded' or 'unloaded'");
  expect_error(PACKED "object 1 loaded base 0xZ functions 1 build-id - id-base 0 path p\n",
               "line 2: object 1: expected 'base 0x<hex address>'");
  expect_error(PACKED "object 1 loaded base 0x1 functions 16777216 build-id - id-base 0 path p\n",
               "line 2: object 1: expected 'functions <count>' (at most 16777215)");
  expect_error(PACKED "object 1 loaded base 0x1 functions 1 build-id abc id-base 0 path p\n",
               "line 2: object 1: expected 'build-id <hex bytes, or ->'");
  expect_error(PACKED "object 1 loaded base 0x1 functions 1 build-id - id-base 268435456 path p\n",
               "line 2: object 1: expected 'id-base <number, or ->'");
  expect_error(PACKED "object 1 loaded base 0x1 functions 1 build-id - id-base 0 path\n",
               "line 2: object 1: expected 'path <path>'");
  expect_error(PACKED "object 1 loaded base 0x1  functions 1 build-id - id-base 0 path p\n",
               "line 2: object 1: expected 'functions <count>' (at most 16777215)");
  expect_error(PACKED OBJ0 "function 1 0 1\n", "line 3: function 1 has no name");
  expect_error(PACKED OBJ0 "function 1 0 1 \n", "line 3: function 1 has no name");
  expect_error(PACKED OBJ0 "function 01 0 1 x\n",
               "line 3: function id is not a non-zero 32-bit packed id");
  expect_error(PACKED OBJ0 "function 2147483648 0 1 x\n",
               "line 3: function id is not a non-zero 32-bit packed id");
  expect_error(PACKED OBJ0 "function 0x1 0 1 x\n",
               "line 3: function id is not a non-zero 32-bit packed id");
  expect_error(PACKED OBJ0 "function 2 0 1 x\n",
               "line 3: function 2 is not the packed id of object 0, function 1");
  expect_error(PACKED OBJ0 "function 16777217 1 1 x\n",
               "line 3: function 16777217: object 1 is not described before it");
  expect_error(PACKED OBJ0 "function 0 0 0 x\n",
               "line 3: function id is not a non-zero 32-bit packed id");
  expect_error(PACKED OBJ0 "function 1 0 0 x\n",
               "line 3: function 1: function number is not from 1 to 16777215");
  expect_error(DENSE OBJ0 "function 268435456 0 1 x\n",
               "line 3: function id is not a dense id from 1 to 268435455");
  expect_error(DENSE OBJ0 "function -1 0 1 x\n",
               "line 3: function id is not a dense id from 1 to 268435455");
  expect_error(DENSE OBJ0 "function 2 0 3 x\n", "line 3: function 2 is less than its function number 3");
  static const char nul_line[] = PACKED OBJ0 "function 1 0 1 a\0b\n";
  struct seen s;
  struct ctl_map_info info;
  char err[256];
  int fd = file_of(nul_line, sizeof nul_line - 1);
  assert_int_equal(ctl_map_read(fd, remember, &s, &info, err, sizeof err), -1);
  assert_string_equal(err, "line 3: holds a NUL byte");
  close(fd);
}

static void line_too_long(void **state) {
  (void)state;
  size_t n = CTL_MAP_MAX_LINE + 1024; /* line 3 alone is longer than the bound */
  char *text = malloc(sizeof PACKED OBJ0 + n + 2);
  assert_non_null(text);
  int k = snprintf(text, sizeof PACKED OBJ0 + 32, PACKED OBJ0 "function 1 0 1 ");
  memset(text + k, 'y', n - (size_t)k);
  strcpy(text + n, "\n");
  expect_error(text, "line 3: longer than 1048576 bytes");
  free(text);
}

/* The table: a map path for ctl_names_open (the memfd's /proc name). */
static const char *path_of(int fd, char *buf, size_t cap) {
  snprintf(buf, cap, "/proc/self/fd/%d", fd);
  return buf;
}

static void duplicates_and_lookup(void **state) {
  (void)state;
  static const char dup[] = PACKED OBJ0 "function 1 0 1 a\nfunction 2 0 2 b\nfunction 1 0 1 c\n";
  char path[64], err[256], want[128];
  int fd = file_of(dup, sizeof dup - 1);
  assert_null(ctl_names_open(NULL, path_of(fd, path, sizeof path), err, sizeof err));
  snprintf(want, sizeof want, "%s: line 5: function 1 is named twice", path);
  assert_string_equal(err, want);
  close(fd);

  static const char good[] = PACKED OBJ0 OBJ1 "function 1 0 1 a b c\nfunction 16777218 1 2 d\n";
  fd = file_of(good, sizeof good - 1);
  struct ctl_names *n = ctl_names_open(NULL, path_of(fd, path, sizeof path), err, sizeof err);
  assert_non_null(n);
  assert_string_equal(ctl_names_get(n, 1), "a b c");
  assert_string_equal(ctl_names_get(n, 16777218), "d");
  assert_null(ctl_names_get(n, 2));
  assert_null(ctl_names_get(n, 16777217));
  assert_null(ctl_names_get(n, -5));
  ctl_names_close(n);
  close(fd);
  /* neither input: a table that knows nothing */
  n = ctl_names_open(NULL, NULL, err, sizeof err);
  assert_non_null(n);
  assert_null(ctl_names_get(n, 1));
  ctl_names_close(n);
  ctl_names_close(NULL);
}

/* Many ids, packed and sparse: every one found, none made up. */
static void many_ids(void **state) {
  (void)state;
  size_t cap = 64u << 20;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t len = (size_t)snprintf(text, cap, PACKED);
  for (int o = 0; o < 200; o++)
    len += (size_t)snprintf(text + len, cap - len,
                            "object %d loaded base 0x1 functions 5000 build-id - id-base - path p\n", o);
  for (int o = 0; o < 200; o++)
    for (int f = 1; f <= 5000; f += 7)
      len += (size_t)snprintf(text + len, cap - len, "function %d %d %d f%d_%d\n",
                              (int32_t)((uint32_t)o << 24 | (uint32_t)f), o, f, o, f);
  int fd = file_of(text, len);
  char path[64], err[256], want[32];
  struct ctl_names *n = ctl_names_open(NULL, path_of(fd, path, sizeof path), err, sizeof err);
  assert_non_null(n);
  for (int o = 0; o < 200; o++)
    for (int f = 1; f <= 5000; f++) {
      const char *name = ctl_names_get(n, (int32_t)((uint32_t)o << 24 | (uint32_t)f));
      if (f % 7 == 1) {
        snprintf(want, sizeof want, "f%d_%d", o, f);
        assert_non_null(name);
        assert_string_equal(name, want);
      } else {
        assert_null(name);
      }
    }
  ctl_names_close(n);
  close(fd);
  free(text);
}

static void sidecar(void **state) {
  (void)state;
  char dir[] = "/tmp/xrayctl-sidecar-XXXXXX", trace[128], out[160], small[8];
  assert_non_null(mkdtemp(dir));
  snprintf(trace, sizeof trace, "%s/xray-log.app.a1b2c3", dir);
  assert_null(ctl_names_sidecar(trace, out, sizeof out));
  snprintf(out, sizeof out, "%s.map", trace);
  FILE *f = fopen(out, "w");
  assert_non_null(f);
  fclose(f);
  memset(out, 0, sizeof out);
  assert_ptr_equal(ctl_names_sidecar(trace, out, sizeof out), out);
  assert_true(strlen(out) == strlen(trace) + 4 && strcmp(out + strlen(trace), ".map") == 0);
  assert_null(ctl_names_sidecar(trace, small, sizeof small)); /* does not fit */
  unlink(out);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(packed_map),        cmocka_unit_test(dense_map_and_long_name),
      cmocka_unit_test(malformed_lines),   cmocka_unit_test(line_too_long),
      cmocka_unit_test(duplicates_and_lookup), cmocka_unit_test(many_ids),
      cmocka_unit_test(sidecar),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
