/* fdr_crash_trace.c, compiled with its test point, without a crash: a
 * small snapshot file made here, read back into a .pftrace the way the
 * crash handler does (all signals blocked); a fault inside the writers
 * comes back (a SIGSEGV handler stands in for the crash handler's), the
 * trace is removed, the mask is as it was; version 1 and chrome alone get
 * no trace. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "export/trace_formats.h"
#include "fdr/fdr_crash_trace.h"
#include "fdr/fdr_records.h"

extern void (*xr_fdr_test_crash_trace_writers)(void);

static const char snap[] = "crash_trace_test.snap";

/* A snapshot of one thread: enter and exit of function 1, then enter of
 * function 2 (the call that crashed), framed as version `version`. */
static void write_snapshot(uint16_t version) {
  uint8_t file[256], *p = file;
  xr_fdr_file_header(p, version, true, true, 1000000000u, 16384);
  p += XR_FDR_FILE_HEADER_SIZE;
  uint8_t *extents = p;
  p += XR_FDR_META_SIZE;
  uint8_t *records = p;
  p = xr_fdr_preamble(p, 5, 4242, getpid(), 1, 0, 0, 1000);
  p = xr_fdr_function(p, 1, XR_FDR_FN_ENTER, 10);
  p = xr_fdr_function(p, 1, XR_FDR_FN_EXIT, 10);
  p = xr_fdr_function(p, 2, XR_FDR_FN_ENTER, 10);
  xr_fdr_buffer_extents(extents, (uint64_t)(p - records));
  int fd = open(snap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, file, (size_t)(p - file)), p - file);
  close(fd);
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static volatile int *volatile null_pointer;
static void fault(void) { *null_pointer = 1; }

/* The crash handler's part: a fault while a crash trace is being written
 * goes back there; otherwise this test is broken. */
static void on_segv(int signo, siginfo_t *info, void *context) {
  (void)signo, (void)info, (void)context;
  xr_fdr_crash_trace_fault();
  static const char line[] = "the fault did not go back to the writer\n";
  write(2, line, sizeof line - 1);
  _exit(3);
}

static int write_blocked(char *files, size_t cap) {
  sigset_t all, before, after;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  uint8_t scratch[64 * 32];
  int rc = xr_fdr_crash_trace_write(snap, scratch, 64, files, cap);
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &before, &after);
  /* as the crash handler had it (less what the kernel never blocks) */
  assert_int_equal(sigismember(&after, SIGSEGV), 1);
  assert_int_equal(sigismember(&after, SIGXFSZ), 1);
  errno = err;
  return rc;
}

static void a_fault_in_the_writers_removes_the_trace(void **s) {
  (void)s;
  char files[512];
  write_snapshot(5);
  unlink("crash_trace_test.snap.pftrace");
  xr_fdr_crash_trace_prepare(XR_TRACE_OUT_XRAY | XR_TRACE_OUT_PERFETTO, true);
  assert_true(xr_fdr_crash_trace_wanted());
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigfillset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);

  xr_fdr_test_crash_trace_writers = fault;
  errno = 0;
  assert_int_equal(write_blocked(files, sizeof files), -1);
  assert_int_equal(errno, EFAULT);
  assert_string_equal(files, "'crash_trace_test.snap.pftrace'");
  assert_false(exists("crash_trace_test.snap.pftrace"));
  assert_false(exists("crash_trace_test.snap.pftrace.part"));

  xr_fdr_test_crash_trace_writers = NULL;
  assert_int_equal(write_blocked(files, sizeof files), 1);
  assert_string_equal(files, "'crash_trace_test.snap.pftrace'");
  assert_true(exists("crash_trace_test.snap.pftrace"));
  assert_false(exists("crash_trace_test.snap.pftrace.part"));
  unlink("crash_trace_test.snap.pftrace");
  sigaction(SIGSEGV, &old, NULL);
  xr_fdr_crash_trace_stop();
  assert_false(xr_fdr_crash_trace_wanted());
}

static void none_for_version_1_or_chrome_alone(void **s) {
  (void)s;
  char files[512];
  write_snapshot(1);
  xr_fdr_crash_trace_prepare(XR_TRACE_OUT_PERFETTO, true);
  assert_int_equal(write_blocked(files, sizeof files), 0);
  assert_false(exists("crash_trace_test.snap.pftrace"));
  write_snapshot(5);
  xr_fdr_crash_trace_prepare(XR_TRACE_OUT_XRAY | XR_TRACE_OUT_CHROME, true);
  assert_false(xr_fdr_crash_trace_wanted());
  assert_int_equal(write_blocked(files, sizeof files), 0);
  xr_fdr_crash_trace_prepare(XR_TRACE_OUT_PERFETTO, false); /* no crash trigger */
  assert_false(xr_fdr_crash_trace_wanted());
  assert_false(exists("crash_trace_test.snap.pftrace"));
  assert_false(exists("crash_trace_test.snap.json"));
  unlink(snap);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_fault_in_the_writers_removes_the_trace),
      cmocka_unit_test(none_for_version_1_or_chrome_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
