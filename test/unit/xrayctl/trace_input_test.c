/* The input of xrayctl's file commands (tools/xrayctl/trace_input.c):
 * every byte read is the file's, a window at a time, a record across a
 * chunk's end or after a jump back; a file that shrinks under it is an
 * error at its offset, not a crash. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "xrayctl/trace_input.h"

static uint8_t byte_at(uint64_t off) { return (uint8_t)(off * 7 + (off >> 16)); }

/* A memfd of size bytes of byte_at's pattern. */
static int pattern_file(size_t size) {
  int fd = memfd_create("input", MFD_CLOEXEC);
  assert_true(fd >= 0);
  uint8_t *b = malloc(size);
  assert_non_null(b);
  for (size_t i = 0; i < size; i++)
    b[i] = byte_at(i);
  assert_int_equal(write(fd, b, size), (ssize_t)size);
  free(b);
  return fd;
}

static void check(const uint8_t *p, uint64_t off, size_t n) {
  assert_non_null(p);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(p[i], byte_at(off + i));
}

static void reads_in_order_and_back(void **state) {
  (void)state;
  size_t size = 5 * CTL_IN_CHUNK + 123;
  int fd = pattern_file(size);
  struct ctl_in in;
  assert_int_equal(ctl_in_open(&in, fd, "input"), 0);
  /* in order, a window at a time */
  for (uint64_t off = 0; off < size;) {
    size_t got;
    const uint8_t *p = ctl_in_window(&in, off, 100000, &got);
    assert_true(got >= 1);
    check(p, off, got);
    off += got;
  }
  /* records across each chunk's end, then a jump back to the start */
  for (uint64_t k = 1; k <= 5; k++) {
    uint64_t off = k * CTL_IN_CHUNK - 3;
    check(ctl_in_at(&in, off, 16), off, 16);
    check(ctl_in_at(&in, off + 16, 64), off + 16, 64);
  }
  check(ctl_in_at(&in, 8, 32), 8, 32);
  check(ctl_in_at(&in, size - 5, 5), size - 5, 5);
  assert_null(ctl_in_at(&in, size - 4, 5)); /* past the end: no error */
  assert_false(in.failed);
  ctl_in_close(&in);
  close(fd);
}

static void shrinking_file_is_an_error(void **state) {
  (void)state;
  size_t size = 4 * CTL_IN_CHUNK;
  int fd = pattern_file(size);
  struct ctl_in in;
  assert_int_equal(ctl_in_open(&in, fd, "input"), 0);
  check(ctl_in_at(&in, 0, 64), 0, 64);
  assert_int_equal(ftruncate(fd, (off_t)(CTL_IN_CHUNK + CTL_IN_CHUNK / 2)), 0);
  /* the chunk cut in two, then what is gone */
  uint64_t off = CTL_IN_CHUNK;
  assert_non_null(ctl_in_at(&in, off, 64));
  assert_null(ctl_in_at(&in, 3 * CTL_IN_CHUNK, 64));
  assert_true(in.failed);
  assert_int_equal(in.err_offset, 3 * CTL_IN_CHUNK);
  ctl_in_close(&in);
  close(fd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reads_in_order_and_back),
      cmocka_unit_test(shrinking_file_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
