/* output.c: log file naming (with and without a directory in the base),
 * exclusive creation, failure messages, complete writes through a pipe. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "capture.h"
#include "core/options/options.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/base/report.h"

static char dir[256];

static int group_setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/xr-output-test.XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  xr_set_argv0("/some/where/my-prog");
  xr_options_set_defaults(&xr_flags_table, &xr_flags);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* The process suffix, then "-N" (N >= 2) for the process's later logs. */
static bool suffix_ok(const char *s) {
  char mine[7];
  xr_process_suffix(mine);
  if (strncmp(s, mine, 6) != 0)
    return false;
  if (s[6] == 0)
    return true;
  char *end;
  long n = s[6] == '-' ? strtol(s + 7, &end, 10) : 0;
  return n >= 2 && *end == 0;
}

static void program_name_is_basename_of_argv0(void **state) {
  (void)state;
  assert_string_equal(xr_program_name(), "my-prog");
}

static void base_with_a_directory_prefix(void **state) {
  (void)state;
  char base[300], path[512];
  snprintf(base, sizeof base, "%s/run-", dir);
  strcpy(xr_flags.xray_logfile_base, base);
  int fd = xr_open_log_file(path, sizeof path);
  assert_true(fd >= 0);
  char prefix[320];
  snprintf(prefix, sizeof prefix, "%s/run-my-prog.", dir);
  assert_int_equal(strncmp(path, prefix, strlen(prefix)), 0);
  assert_true(suffix_ok(path + strlen(prefix)));
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(st.st_size, 0);
  assert_int_equal(stat(path, &st), 0);
  close(fd);
}

static void default_base_in_the_current_directory(void **state) {
  (void)state;
  char old[512], path[512];
  assert_non_null(getcwd(old, sizeof old));
  assert_int_equal(chdir(dir), 0);
  strcpy(xr_flags.xray_logfile_base, "xray-log.");
  int fd = xr_open_log_file(path, sizeof path);
  assert_int_equal(chdir(old), 0);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(strncmp(path, "xray-log.my-prog.", 17), 0);
  assert_true(suffix_ok(path + 17));
  char full[800];
  snprintf(full, sizeof full, "%s/%s", dir, path);
  assert_int_equal(access(full, F_OK), 0);
}

static void names_are_distinct(void **state) {
  (void)state;
  char base[300], a[512], b[512];
  snprintf(base, sizeof base, "%s/same-", dir);
  strcpy(xr_flags.xray_logfile_base, base);
  int fa = xr_open_log_file(a, sizeof a);
  int fb = xr_open_log_file(b, sizeof b);
  assert_true(fa >= 0 && fb >= 0);
  assert_string_not_equal(a, b);
  close(fa);
  close(fb);
}

/* One suffix per process (six of a-z0-9), a new one in a fork child. */
static void one_suffix_per_process(void **state) {
  (void)state;
  char a[7], b[7];
  xr_process_suffix(a);
  xr_process_suffix(b);
  assert_string_equal(a, b);
  assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789"), 6);
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c[7];
    xr_process_suffix(c);
    _exit(write(p[1], c, 7) == 7 ? 0 : 1);
  }
  char child[7];
  assert_int_equal(read(p[0], child, 7), 7);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_int_equal(st, 0);
  assert_string_not_equal(child, a);
  xr_process_suffix(b);
  assert_string_equal(a, b); /* the parent keeps its own */
  close(p[0]);
  close(p[1]);
}

static void sibling_is_exclusive(void **state) {
  (void)state;
  char base[300], out[512];
  snprintf(base, sizeof base, "%s/sib", dir);
  int fd = xr_open_sibling_file(base, ".folded", out, sizeof out);
  assert_true(fd >= 0);
  close(fd);
  char want[320];
  snprintf(want, sizeof want, "%s/sib.folded", dir);
  assert_string_equal(out, want);
  capture_begin();
  fd = xr_open_sibling_file(base, ".folded", out, sizeof out);
  const char *err = capture_end();
  assert_int_equal(fd, -1);
  assert_non_null(strstr(err, "File exists"));
}

static void missing_directory_reported_with_errno_text(void **state) {
  (void)state;
  char base[300], path[512];
  snprintf(base, sizeof base, "%s/no/such/dir/x-", dir);
  strcpy(xr_flags.xray_logfile_base, base);
  capture_begin();
  int fd = xr_open_log_file(path, sizeof path);
  const char *err = capture_end();
  assert_int_equal(fd, -1);
  assert_int_equal(count_lines(err), 1);
  assert_non_null(strstr(err, "No such file or directory"));
  assert_non_null(strstr(err, "not logging events"));
}

static void name_too_long(void **state) {
  (void)state;
  char path[24];
  strcpy(xr_flags.xray_logfile_base, "a-rather-long-prefix-");
  capture_begin();
  int fd = xr_open_log_file(path, sizeof path);
  const char *err = capture_end();
  assert_int_equal(fd, -1);
  assert_string_equal(path, "");
  assert_non_null(strstr(err, "too long"));
}

/* ---- xr_write_all through a pipe, interrupted by signals ---------------- */

enum { BIG = 4 << 20 };
static unsigned char *big_in, *big_out;
static int pipe_fds[2];
static volatile int signals_seen;

static void on_usr1(int sig) {
  (void)sig;
  signals_seen++;
}

static void *reader(void *arg) {
  (void)arg;
  size_t got = 0;
  while (got < BIG) {
    ssize_t r = read(pipe_fds[0], big_out + got, BIG - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  return (void *)got;
}

static void *writer(void *arg) {
  (void)arg;
  intptr_t rc = xr_write_all(pipe_fds[1], big_in, BIG);
  return (void *)rc;
}

static void write_all_survives_interrupts_and_partial_writes(void **state) {
  (void)state;
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1; /* no SA_RESTART: writes return early */
  sigaction(SIGUSR1, &sa, NULL);
  big_in = malloc(BIG);
  big_out = malloc(BIG);
  for (size_t i = 0; i < BIG; i++)
    big_in[i] = (unsigned char)(i * 2654435761u >> 13);
  assert_int_equal(pipe(pipe_fds), 0);
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  /* Interrupt the writer while it is blocked on the full pipe. */
  for (int i = 0; i < 200; i++) {
    pthread_kill(w, SIGUSR1);
    sched_yield();
  }
  pthread_create(&r, NULL, reader, NULL);
  for (int i = 0; i < 200; i++) {
    pthread_kill(w, SIGUSR1);
    sched_yield();
  }
  void *wrc, *got;
  pthread_join(w, &wrc);
  pthread_join(r, &got);
  assert_int_equal((intptr_t)wrc, 0);
  assert_int_equal((size_t)got, BIG);
  assert_memory_equal(big_in, big_out, BIG);
  print_message("signals delivered to the writer: %d\n", signals_seen);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  free(big_in);
  free(big_out);
}

static void write_all_reports_epipe(void **state) {
  (void)state;
  signal(SIGPIPE, SIG_IGN);
  int p[2];
  assert_int_equal(pipe(p), 0);
  close(p[0]);
  errno = 0;
  assert_int_equal(xr_write_all(p[1], "abc", 3), -1);
  assert_int_equal(errno, EPIPE);
  close(p[1]);
  assert_int_equal(xr_write_all(p[1], "abc", 3), -1);
  assert_int_equal(errno, EBADF);
  assert_int_equal(xr_write_all(-1, "", 0), 0); /* nothing to write */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(program_name_is_basename_of_argv0),
      cmocka_unit_test(base_with_a_directory_prefix),
      cmocka_unit_test(default_base_in_the_current_directory),
      cmocka_unit_test(names_are_distinct),
      cmocka_unit_test(one_suffix_per_process),
      cmocka_unit_test(sibling_is_exclusive),
      cmocka_unit_test(missing_directory_reported_with_errno_text),
      cmocka_unit_test(name_too_long),
      cmocka_unit_test(write_all_survives_interrupts_and_partial_writes),
      cmocka_unit_test(write_all_reports_epipe),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
