/* The basic-mode log file: header bytes, whole-record appends, and the fault
 * paths: RLIMIT_FSIZE cuts the file back to whole records (no SIGXFSZ), a
 * file that could hold only its header is removed, a failure stops
 * recording and sticks until reset. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/basic_records.h"
#include "basic/basic_writer.h"
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/options/options.h" /* xr_flags */
#include "xray/xray_version.h"

static char dir[] = "/tmp/xr-basic-writer-XXXXXX";
static struct rlimit saved_limit;

static int group_setup(void **state) {
  (void)state;
  if (mkdtemp(dir) == NULL)
    return -1;
  snprintf(xr_flags.xray_logfile_base, sizeof(xr_flags.xray_logfile_base),
           "%s/w-", dir);
  signal(SIGXFSZ, SIG_IGN); /* a bug must fail the test, not kill it */
  getrlimit(RLIMIT_FSIZE, &saved_limit);
  xr_clock_init();
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static int test_setup(void **state) {
  (void)state;
  setrlimit(RLIMIT_FSIZE, &saved_limit);
  xr_basic_writer_close();
  xr_basic_writer_reset();
  xr_basic_epoch = 2; /* recording, as after an init */
  return 0;
}

static void limit_file_size(rlim_t bytes) {
  struct rlimit rl = saved_limit;
  rl.rlim_cur = bytes;
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static void make_records(struct xr_basic_record *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    xr_basic_put_normal(&r[i], (int32_t)i + 1, XR_BASIC_ENTRY, 0, 1000 + i,
                        xr_basic_ids(7, 8));
}

static void header_then_records(void **state) {
  (void)state;
  struct xr_basic_record r[3];
  make_records(r, 3);
  assert_int_equal(xr_basic_writer_append(r, 2), 0);
  assert_int_equal(xr_basic_writer_append(r + 2, 1), 0);
  char path[1024];
  snprintf(path, sizeof(path), "%s", xr_basic_writer_path());
  assert_true(strncmp(path, dir, strlen(dir)) == 0);
  xr_basic_writer_close();

  uint8_t b[256];
  assert_int_equal(read_file(path, b, sizeof(b)), 32 + 3 * 32);
  assert_int_equal(b[0] | b[1] << 8, 3); /* version */
  assert_int_equal(b[2] | b[3] << 8, 0); /* type: basic */
  uint32_t flags;
  memcpy(&flags, b + 4, 4);
  assert_int_equal(flags, (xr_clock.constant_tsc ? 1u : 0u) |
                              (xr_clock.nonstop_tsc ? 2u : 0u));
  uint64_t freq;
  memcpy(&freq, b + 8, 8);
  assert_true(freq == xr_clock.frequency_hz && freq > 0);
  static const uint8_t zero[8];
  assert_memory_equal(b + 16, zero, 8);
  /* the runtime's stamp (docs/formats.md "Common header") */
  const uint8_t stamp[8] = {'X', 'R', 'R', 'T', XRAY_RUNTIME_VERSION_MAJOR,
                            XRAY_RUNTIME_VERSION_MINOR,
                            XRAY_RUNTIME_VERSION_PATCH & 0xff,
                            XRAY_RUNTIME_VERSION_PATCH >> 8};
  assert_memory_equal(b + 24, stamp, 8);
  assert_memory_equal(b + 32, r, sizeof(r));
  assert_int_equal(xr_basic_writer_records(), 3);
  assert_int_equal(xr_basic_epoch, 2); /* still recording */
}

static void nothing_to_write_creates_no_file(void **state) {
  (void)state;
  assert_int_equal(xr_basic_writer_append(NULL, 0), 0);
  assert_string_equal(xr_basic_writer_path(), "");
}

static void size_limit_keeps_whole_records(void **state) {
  (void)state;
  struct xr_basic_record r[5];
  make_records(r, 5);
  limit_file_size(32 + 2 * 32 + 10);
  assert_int_equal(xr_basic_writer_append(r, 5), -1); /* reported (stderr) */
  char path[1024];
  snprintf(path, sizeof(path), "%s", xr_basic_writer_path());
  setrlimit(RLIMIT_FSIZE, &saved_limit);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_size, 32 + 2 * 32);
  assert_int_equal(xr_basic_epoch & 1, 1); /* recording stopped */
  /* A failure sticks until the next init resets the writer. */
  assert_int_equal(xr_basic_writer_append(r, 1), -1);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_size, 32 + 2 * 32);
  xr_basic_writer_reset();
  assert_int_equal(xr_basic_writer_append(r, 1), 0);
  assert_string_not_equal(xr_basic_writer_path(), path); /* a new file */
}

static void no_room_for_a_record_leaves_no_file(void **state) {
  (void)state;
  struct xr_basic_record r[1];
  make_records(r, 1);
  limit_file_size(40);
  assert_int_equal(xr_basic_writer_append(r, 1), -1);
  setrlimit(RLIMIT_FSIZE, &saved_limit);
  assert_string_equal(xr_basic_writer_path(), "");
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "test -z \"$(find '%s' -name 'w-*' -size -64c)\"",
           dir);
  assert_int_equal(system(cmd), 0); /* no header-only file anywhere */
}

static void unwritable_base_stops_recording(void **state) {
  (void)state;
  char saved[sizeof(xr_flags.xray_logfile_base)];
  memcpy(saved, xr_flags.xray_logfile_base, sizeof(saved));
  snprintf(xr_flags.xray_logfile_base, sizeof(xr_flags.xray_logfile_base),
           "%s/missing/dir/w-", dir);
  struct xr_basic_record r[1];
  make_records(r, 1);
  assert_int_equal(xr_basic_writer_append(r, 1), -1);
  assert_int_equal(xr_basic_epoch & 1, 1);
  memcpy(xr_flags.xray_logfile_base, saved, sizeof(saved));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(header_then_records, test_setup),
      cmocka_unit_test_setup(nothing_to_write_creates_no_file, test_setup),
      cmocka_unit_test_setup(size_limit_keeps_whole_records, test_setup),
      cmocka_unit_test_setup(no_room_for_a_record_leaves_no_file, test_setup),
      cmocka_unit_test_setup(unwritable_base_stops_recording, test_setup),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
