/* The buffered writer of the readable files (core/output/text_out.h): no piece
 * and no formatted line is cut, whatever its length, and the first
 * failure sticks with its errno. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/output/text_out.h"

static struct memory {
  char bytes[1 << 17];
  size_t len;
  size_t calls;
  int fail_with; /* errno the next write fails with; 0: none */
} mem;

static int memory_sink(void *ctx, const void *data, size_t n) {
  struct memory *m = ctx;
  m->calls++;
  if (m->fail_with != 0) {
    errno = m->fail_with;
    return -1;
  }
  assert_true(n <= sizeof m->bytes - m->len);
  memcpy(m->bytes + m->len, data, n);
  m->len += n;
  return 0;
}

static struct xr_text_out out; /* 16 KiB: not on the stack */
static char name[25001];       /* a name longer than the buffer */

static int setup(void **state) {
  (void)state;
  memset(&mem, 0, sizeof mem);
  for (size_t i = 0; i < sizeof name - 1; i++)
    name[i] = (char)('a' + i % 26);
  name[sizeof name - 1] = '\0';
  xr_text_init(&out, memory_sink, &mem);
  return 0;
}

static void pieces_larger_than_the_buffer_pass_whole(void **state) {
  (void)state;
  xr_text_str(&out, "head ");
  xr_text_str(&out, name);
  xr_text_str(&out, "\n");
  assert_int_equal(xr_text_flush(&out), 0);
  assert_int_equal(mem.len, 5 + strlen(name) + 1);
  assert_memory_equal(mem.bytes, "head ", 5);
  assert_memory_equal(mem.bytes + 5, name, strlen(name));
  assert_int_equal(mem.bytes[mem.len - 1], '\n');
}

static void formatted_lines_are_never_cut(void **state) {
  (void)state;
  char expect[sizeof name + 64];
  size_t n = 0;
  /* one line that fits, one that fits only an empty buffer, one larger
   * than the buffer: every byte arrives, in order */
  static char mid[12000];
  memset(mid, 'm', sizeof mid - 1);
  xr_text_printf(&out, "function %d %s\n", 1, "short");
  n += (size_t)sprintf(expect + n, "function %d %s\n", 1, "short");
  xr_text_put(&out, name, 6000); /* 6000 + 12000 > the 16 KiB buffer */
  memcpy(expect + n, name, 6000);
  n += 6000;
  xr_text_printf(&out, "function %d %s\n", 2, mid);
  xr_text_printf(&out, "function %d %s\n", 3, name);
  assert_int_equal(xr_text_flush(&out), 0);
  assert_int_equal(mem.len, n + 11 + strlen(mid) + 1 + 11 + strlen(name) + 1);
  assert_memory_equal(mem.bytes, expect, n);
  char *p = mem.bytes + n;
  assert_memory_equal(p, "function 2 ", 11);
  assert_memory_equal(p + 11, mid, strlen(mid));
  p += 11 + strlen(mid);
  assert_memory_equal(p, "\nfunction 3 ", 12);
  assert_memory_equal(p + 12, name, strlen(name));
  assert_int_equal(p[12 + strlen(name)], '\n');
}

static void the_first_failure_sticks_with_its_errno(void **state) {
  (void)state;
  mem.fail_with = ENOSPC;
  xr_text_str(&out, name); /* larger than the buffer: written at once */
  assert_int_equal(mem.calls, 1);
  assert_int_equal(out.failed, ENOSPC);
  mem.fail_with = 0;
  xr_text_printf(&out, "later %s\n", name);
  xr_text_str(&out, "more");
  errno = 0;
  assert_int_equal(xr_text_flush(&out), -1);
  assert_int_equal(errno, ENOSPC);
  assert_int_equal(mem.calls, 1); /* nothing written after the failure */
  assert_int_equal(mem.len, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(pieces_larger_than_the_buffer_pass_whole, setup),
      cmocka_unit_test_setup(formatted_lines_are_never_cut, setup),
      cmocka_unit_test_setup(the_first_failure_sticks_with_its_errno, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
