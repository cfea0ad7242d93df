/* Exit, or fork, while another thread is inside a mode's flush (the exit
 * policy waits for it, bounded; a fork child is not left flushing).
 *
 *   exit_transition <xray-basic|xray-fdr|xray-profiling> <exit|fork> <dir>
 *
 * main records CALLS calls of work() and finalizes; a second thread (B)
 * flushes and is held inside the flush, provably, by something only this
 * program lets go of:
 *  - xray-basic: the flush's first append writes the header under a POSIX
 *    record lock on the file's first byte; main holds an open-file-
 *    description lock there first, which conflicts even in one process;
 *  - xray-fdr, xray-profiling: the flush says "Log file in" (verbosity=1)
 *    on stderr, which main has made a full pipe.
 * main learns that B is blocked there from /proc/self/task/<B>/syscall
 * (fcntl F_SETLKW, or write to fd 2): B is then inside the flush.
 *
 * exit: main returns. Its exit policy, finding B's flush, says so on stderr
 * at verbosity 1, which blocks on the full pipe: a helper thread (C) that
 * sees main blocked there copies the line main is writing to the real
 * stderr (from /proc/self/mem: the process may end before the pipe's copy
 * is read), puts the real stderr back on fd 2 and lets B go (unlock, drain
 * the pipe, whose lines are dropped); the log is complete. Without the
 * wait main never writes there: the process ends with B blocked, and the
 * log is empty.
 * fork: main forks. The child (B does not exist there) must not be stuck
 * flushing: it finds the mode UNINITIALIZED, starts it again, records
 * CHILD_CALLS calls into a log of its own. Then the parent lets B go.
 *
 * Every function but work() is never instrumented, so the log holds only
 * work's records (the profile: one call path, work). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define CALLS 1000
#define CHILD_CALLS 300
#define QUIET __attribute__((xray_never_instrument))

static volatile int sink;
__attribute__((xray_always_instrument, noinline)) void work(int i) {
  sink += i;
}

QUIET static void calls(int n) {
  for (int i = 0; i < n; i++)
    work(i);
}

static const char *mode;
static int lock_fd = -1;       /* xray-basic: the log, with our lock */
static int keep_stderr = -1;   /* the real stderr */
static int pipe_r = -1;        /* the read end of the full pipe on fd 2 */
static pid_t b_tid;            /* atomic */

QUIET static void say(const char *fmt, ...) {
  char line[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (write(1, line, (size_t)n) != n)
    _exit(9);
}

QUIET static void die(const char *what) {
  dprintf(keep_stderr >= 0 ? keep_stderr : 2, "exit_transition: %s: %s\n",
          what, strerror(errno));
  _exit(8);
}

QUIET static const char *config(void) {
  return strcmp(mode, "xray-basic") == 0
             ? "func_duration_threshold_us=0 thread_buffer_size=8192"
         : strcmp(mode, "xray-fdr") == 0 ? "func_duration_threshold_us=0"
                                         : "";
}

/* True when thread tid is inside system call nr, with fd as its first
 * argument when fd >= 0; *args: the rest of the line. */
QUIET static bool in_syscall_args(pid_t tid, long nr, int fd,
                                  const char **args) {
  static char line[256];
  char path[64], prefix[48];
  if (fd >= 0)
    snprintf(prefix, sizeof prefix, "%ld 0x%x ", nr, fd);
  else
    snprintf(prefix, sizeof prefix, "%ld ", nr);
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  int f = open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0)
    die("open /proc/self/task/<tid>/syscall");
  ssize_t n = read(f, line, sizeof line - 1);
  close(f);
  line[n > 0 ? n : 0] = 0;
  *args = line + strlen(prefix);
  return strncmp(line, prefix, strlen(prefix)) == 0;
}

QUIET static bool in_syscall(pid_t tid, long nr, int fd) {
  const char *args;
  return in_syscall_args(tid, nr, fd, &args);
}

/* The only file of dir, opened for writing (xray-basic's log). */
QUIET static int open_log(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL)
    die("opendir");
  struct dirent *e;
  char path[4096];
  path[0] = 0;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
  closedir(d);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    die("open the log");
  return fd;
}

QUIET static void ofd_lock(int type) {
  struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET, .l_len = 1};
  if (fcntl(lock_fd, F_OFD_SETLK, &fl) != 0)
    die("F_OFD_SETLK");
}

/* fd 2 becomes a pipe with no room left: the next report blocks. */
QUIET static void fill_stderr(void) {
  int p[2];
  if (pipe(p) != 0 || (keep_stderr = dup(2)) < 0 || dup2(p[1], 2) < 0)
    die("pipe");
  close(p[1]);
  pipe_r = p[0];
  int flags = fcntl(2, F_GETFL);
  fcntl(2, F_SETFL, flags | O_NONBLOCK);
  static const char dots[4096] = {0};
  for (size_t chunk = sizeof dots; chunk > 0;) {
    ssize_t w = write(2, dots, chunk);
    if (w > 0)
      continue;
    if (errno == EAGAIN)
      chunk /= 2; /* down to single bytes: the last page full too */
    else
      die("fill the pipe");
  }
  fcntl(2, F_SETFL, flags);
}

/* Lets B go: the real stderr back on fd 2, the lock, then the pipe. */
QUIET static void release(void) {
  dup2(keep_stderr, 2);
  if (lock_fd >= 0)
    ofd_lock(F_UNLCK);
  char buf[4096];
  while (read(pipe_r, buf, sizeof buf) > 0) {
  }
}

/* C: once main is blocked writing on fd 2 (its exit policy's "waiting"),
 * copies that line to the real stderr, then lets B go. */
QUIET static void *release_when_main_reports(void *arg) {
  (void)arg;
  const char *args;
  while (!in_syscall_args(getpid(), SYS_write, 2, &args))
    sched_yield();
  unsigned long at = 0, len = 0;
  char text[1024];
  int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (sscanf(args, "%lx %lx", &at, &len) != 2 || len > sizeof text || mem < 0 ||
      pread(mem, text, len, (off_t)at) != (ssize_t)len)
    die("read main's line");
  close(mem);
  if (write(keep_stderr, text, len) != (ssize_t)len)
    die("copy main's line");
  release();
  return NULL;
}

QUIET static void *release_now(void *arg) {
  (void)arg;
  release();
  return NULL;
}

QUIET static void *flusher(void *arg) {
  (void)arg;
  __atomic_store_n(&b_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
  int s = __xray_log_flushLog();
  if (s != XRAY_LOG_FLUSHED)
    say("B: flush %d\n", s);
  return NULL;
}

QUIET static void child(void) {
  dup2(keep_stderr, 2); /* nobody drains the pipe here */
  say("child: finalize %d\n", __xray_log_finalize());
  int s = __xray_log_init_mode(mode, config());
  say("child: init %d\n", s);
  if (s != XRAY_LOG_INITIALIZED)
    _exit(1);
  calls(CHILD_CALLS);
  say("child: finalize %d\n", __xray_log_finalize());
  say("child: flush %d\n", __xray_log_flushLog());
  _exit(0);
}

QUIET int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  mode = argv[1];
  bool fork_it = strcmp(argv[2], "fork") == 0;
  say("init %d\n", __xray_log_init_mode(mode, config()));
  __xray_patch();
  calls(CALLS);
  say("finalize %d\n", __xray_log_finalize());
  bool basic = strcmp(mode, "xray-basic") == 0;
  if (basic) {
    lock_fd = open_log(argv[3]);
    ofd_lock(F_WRLCK);
  }
  fill_stderr();
  pthread_t b, c;
  pthread_create(&b, NULL, flusher, NULL);
  pid_t tid;
  while ((tid = __atomic_load_n(&b_tid, __ATOMIC_SEQ_CST)) == 0)
    sched_yield();
  while (basic ? !in_syscall(tid, SYS_fcntl, -1) : !in_syscall(tid, SYS_write, 2))
    sched_yield();
  say("B is inside the flush\n");
  if (!fork_it) {
    pthread_detach(b); /* still flushing when main returns */
    pthread_create(&c, NULL, release_when_main_reports, NULL);
    pthread_detach(c);
    say("exiting\n");
    return 0;
  }
  pid_t pid = fork();
  if (pid < 0)
    die("fork");
  if (pid == 0)
    child();
  int status;
  if (waitpid(pid, &status, 0) != pid)
    die("waitpid");
  say("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128);
  pthread_create(&c, NULL, release_now, NULL);
  pthread_detach(c);
  pthread_join(b, NULL);
  say("B is done\n");
  return 0;
}
