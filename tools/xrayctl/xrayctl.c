/* xrayctl: steers a running program started with XRAY_OPTIONS=xray_control=true
 * through its control socket (docs/control.md), and reads trace files
 * (report, convert: trace_report.c, trace_convert.c). C11, libc only.
 *
 * Exit status: 0 done; 1 the program refused or failed (its message is
 * printed); 2 usage error; 3 no such controllable process; 4 permission
 * denied. */
#define _GNU_SOURCE
#include "control/control_path.h"
#include "control/control_proto.h"
#include "proc_target.h"
#include "trace_convert.h"
#include "trace_report.h"
#include "xray/xray_version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_PROCESS = 3, EXIT_DENIED = 4 };

static const char usage_text[] =
    "usage: xrayctl [--dir DIR] COMMAND [ARGS]\n"
    "       xrayctl --version | --help\n"
    "\n"
    "Steers a program started with XRAY_OPTIONS=\"xray_control=true\" (docs/control.md).\n"
    "\n"
    "  list                        every controllable process of this user (root:\n"
    "                              also those in containers): PID PROGRAM MODE STATE\n"
    "                              [ns-pid=PID inside its PID namespace]\n"
    "  status PID                  the program's runtime version, mode, state,\n"
    "                              objects, functions, budget, args, requests, files\n"
    "  patch PID PATTERNS          patch the functions whose names match (';'-separated\n"
    "                              globs as in xray_patch=; '*' = all): prints how many\n"
    "  unpatch PID PATTERNS        unpatch them: prints how many\n"
    "  start PID MODE [OPTIONS]    start xray-basic|xray-fdr|xray-profiling (or basic,\n"
    "                              fdr, profiling) with that mode's option string\n"
    "  stop PID                    finalize and flush: prints each file written\n"
    "  flush PID                   write without stopping (FDR: a snapshot)\n"
    "  snapshot PID [-o FILE]      FDR snapshot: prints its path; -o copies it to\n"
    "                              FILE (and its .map, when written, to FILE.map)\n"
    "  record PID --seconds S [--mode M] [--patch PATTERNS] [-o FILE]\n"
    "                              start M (default fdr), patch PATTERNS (default '*'),\n"
    "                              wait S seconds, stop, unpatch: the program is left as\n"
    "                              it was; prints the files; -o copies the trace to FILE\n"
    "                              and its .map to FILE.map (FILE.json: the Chrome\n"
    "                              trace JSON; FILE.pftrace: the Perfetto trace)\n"
    "  budget PID PERCENT          keep the runtime's cost at or under PERCENT of the\n"
    "                              program's CPU time (e.g. 2 or 0.5; 0: off) by\n"
    "                              unpatching the costliest functions: prints the\n"
    "                              budget's status\n"
    "  args PID [SPEC | --clear]   capture arguments and return values of the\n"
    "                              functions SPEC names (PATTERN@VALUE[,VALUE...][;...],\n"
    "                              e.g. 'lookup@arg1,arg2/s,retval'), or none: prints\n"
    "                              the SPEC in effect, then per pattern the functions\n"
    "                              it matches and the pattern\n"
    "  top PID [--interval S] [--batch] [--iterations N]\n"
    "                              the functions with the most local time over each\n"
    "                              interval (default 1 s), all threads; --batch prints\n"
    "                              plain text (default 1 iteration)\n"
    "\n"
    "Files (no program needed; docs/control.md \"Reading files\"):\n"
    "  report TRACE [-m BINARY] [--top N] [--sort count|sum|self|max|name] [--csv]\n"
    "                              one row per function of a basic or FDR log or a\n"
    "                              profile: calls, min, median, p90, p99, max, total\n"
    "                              and self time (ns)\n"
    "  convert TRACE [-m BINARY] --to perfetto|chrome|folded -o OUT\n"
    "                              the runtime's readable views, from the file\n"
    "                              (a profile: folded only)\n"
    "                              Names: -m BINARY and TRACE.map (found beside it);\n"
    "                              a profile's clock: --frequency HZ, else TRACE.txt\n"
    "\n"
    "  --version, -V               print xrayctl's version (that of the runtime it\n"
    "                              was built with) and exit\n"
    "\n"
    "The socket is found in DIR (--dir, or XRAYCTL_DIR), else in the process's\n"
    "$XDG_RUNTIME_DIR/xray and /tmp/xray-<uid>, inside its root when it runs in\n"
    "a container (PID is then the host's).\n"
    "Exit status: 0 done; 1 the program refused or failed, or a bad file (its\n"
    "byte offset is named); 2 usage error;\n"
    "3 no such controllable process; 4 permission denied.\n";

static const char *forced_dir;

static _Noreturn void die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("xrayctl: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(status);
}

static _Noreturn void usage(const char *why) {
  if (why)
    fprintf(stderr, "xrayctl: %s\n", why);
  fputs(usage_text, stderr);
  exit(EXIT_USAGE);
}

/* A percent as the user types it ("2", "2.0", "0.50", "007") in the
 * protocol's one spelling ("2", "2", "0.5", "7"), or a usage error. */
static const char *wire_percent(const char *given, char *out, size_t cap) {
  size_t whole = strspn(given, "0123456789"), frac = 0;
  if (given[whole] == '.')
    frac = strspn(given + whole + 1, "0123456789");
  size_t len = whole + (given[whole] == '.' ? 1 + frac : 0);
  while (whole > 1 && given[0] == '0') {
    given++;
    whole--;
    len--;
  }
  while (frac > 0 && given[whole + frac] == '0')
    frac--;
  char text[64];
  uint32_t thousandths;
  if (given[len] == '\0' && whole > 0 && len < sizeof text)
    snprintf(text, sizeof text, "%.*s%s%.*s", (int)whole, given, frac ? "." : "", (int)frac,
             given + whole + 1);
  else
    text[0] = '\0';
  if (!xr_ctl_percent(text, &thousandths))
    usage("PERCENT must be a number from 0 to 100 with at most 3 decimals (e.g. 2 or 0.5)");
  snprintf(out, cap, "%s", text);
  return out;
}

static long parse_pid(const char *s) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v <= 0 || v > 0x3fffffff)
    usage("PID must be a positive number");
  return v;
}

/* Directories to look in for uid's sockets, into dirs; returns how many. */
static int candidate_dirs(long uid, const char *xdg, char dirs[4][XR_CTL_PATH_MAX]) {
  if (forced_dir) {
    snprintf(dirs[0], XR_CTL_PATH_MAX, "%s", forced_dir);
    return 1;
  }
  int n = 0;
  char found[2][XR_CTL_PATH_MAX];
  char run_user[64];
  snprintf(run_user, sizeof run_user, "/run/user/%ld", uid);
  const char *xdgs[2] = {xdg, run_user};
  for (int k = 0; k < 2; k++) {
    int m = xr_ctl_default_dirs((uid_t)uid, xdgs[k], found);
    for (int i = 0; i < m; i++) {
      bool dup = false;
      for (int j = 0; j < n; j++)
        dup |= strcmp(dirs[j], found[i]) == 0;
      if (!dup && n < 4)
        memcpy(dirs[n++], found[i], XR_CTL_PATH_MAX);
    }
  }
  return n;
}

/* The same inside a process's own root (a container): "<xdg>/xray" when
 * its XDG_RUNTIME_DIR is absolute, "/run/user/<uid>/xray", "/tmp/xray-<uid>",
 * uid as the process knows it. The directory's checks come when it is
 * opened (dial_in_root). */
static int dirs_in_root(long ns_uid, const char *xdg, char dirs[3][XR_CTL_PATH_MAX]) {
  int n = 0;
  if (xdg != NULL && xdg[0] == '/' &&
      snprintf(dirs[n], XR_CTL_PATH_MAX, "%s/xray", xdg) < XR_CTL_PATH_MAX - 24)
    n++;
  snprintf(dirs[n++], XR_CTL_PATH_MAX, "/run/user/%ld/xray", ns_uid);
  snprintf(dirs[n++], XR_CTL_PATH_MAX, "/tmp/xray-%ld", ns_uid);
  return n;
}

/* Connects to path; returns the fd or -errno. */
static int dial(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

/* The process that listens at the far end of fd, as seen here (the kernel
 * notes it at listen()); 0 when it is in a PID namespace we cannot see. */
static long listener_pid(int fd) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return -1;
  return cred.pid;
}

/* Connects to "<dir>/<its pid>.sock" inside t's root. Nothing there is
 * trusted: the directory is opened resolved inside the root (a symlink,
 * absolute or not, never leads to one of this host's paths) and checked
 * as on the host (a directory of the process's uid, 0700, not a symlink);
 * the socket is opened without following a symlink and must be a socket
 * of that uid; the connection goes to that very file through
 * /proc/self/fd/N, which also fits sun_path however deep the root lies.
 * Returns the fd or -errno; *why says what was refused (else NULL). */
static int dial_in_root(const struct ctl_target *t, const char *dir, const char **why) {
  *why = NULL;
  int d = ctl_open_in_root(t->root_fd, dir, O_PATH | O_DIRECTORY);
  if (d < 0) {
    int e = errno;
    if (e == ELOOP || e == ENOTDIR || e == EXDEV)
      *why = "a symbolic link (or '..') on the way, not followed";
    return -e;
  }
  struct stat st;
  if (fstat(d, &st) != 0 || (*why = xr_ctl_check_dir_stat(&st, (uid_t)t->uid)) != NULL) {
    close(d);
    return -EPERM;
  }
  char name[32];
  snprintf(name, sizeof name, "%ld.sock", t->ns_pid);
  int s = openat(d, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  int e = errno;
  close(d);
  if (s < 0)
    return -e;
  if (fstat(s, &st) != 0 || !S_ISSOCK(st.st_mode) || (long)st.st_uid != t->uid) {
    close(s);
    *why = "its socket is not a socket of the process's uid";
    return -EPERM;
  }
  char via[48];
  snprintf(via, sizeof via, "/proc/self/fd/%d", s);
  int fd = dial(via);
  close(s);
  return fd;
}

/* A socket whose process is gone: removed, as its process could not. */
static void remove_if_stale(const char *path, long pid) {
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
    unlink(path);
}

/* The process of the command (its ids and root), read once. */
static struct ctl_target target;

/* A connection only to pid itself: a socket served by any other process
 * (one in another PID namespace that shares the directory, a symlink
 * swapped in at the last moment) is closed before a byte is sent, and
 * named on stderr when `say`. */
static bool served_by(int fd, long pid, const char *where, bool say) {
  long by = listener_pid(fd);
  if (by == pid)
    return true;
  if (say)
    fprintf(stderr, "xrayctl: skipping '%s': served by process %ld, not %ld\n",
            where, by, pid);
  close(fd);
  return false;
}

/* A connection to t's socket inside its root (a container), tried in each
 * directory the program may use (dirs_in_root), or -1. `say`: what was
 * refused goes to stderr. *denied: some directory refused this user. */
static int dial_target_in_root(const struct ctl_target *t, const char *xdg,
                               bool say, bool *denied) {
  char dirs[3][XR_CTL_PATH_MAX];
  int n = dirs_in_root(t->ns_uid, xdg, dirs);
  for (int i = 0; i < n; i++) {
    const char *why;
    int fd = dial_in_root(t, dirs[i], &why);
    if (say && why != NULL)
      fprintf(stderr, "xrayctl: skipping '%s' in the root of process %ld: %s\n",
              dirs[i], t->pid, why);
    if (fd >= 0 && served_by(fd, t->pid, dirs[i], say))
      return fd;
    *denied |= fd == -EACCES;
  }
  return -1;
}

static int connect_pid(long pid) {
  if (target.pid != pid && ctl_target_open(pid, &target) != 0)
    die(EXIT_NO_PROCESS, "no process %ld", pid);
  long uid = target.uid;
  char xdg_buf[XR_CTL_PATH_MAX];
  const char *xdg = ctl_process_xdg(pid, xdg_buf, sizeof xdg_buf);
  bool denied = false;
  if (target.root_fd >= 0 && !forced_dir) {
    int fd = dial_target_in_root(&target, xdg, true, &denied);
    if (fd >= 0)
      return fd;
  } else {
    if (xdg == NULL && (uid_t)uid == geteuid())
      xdg = getenv("XDG_RUNTIME_DIR");
    char dirs[4][XR_CTL_PATH_MAX];
    int n = candidate_dirs(target.ns_uid, xdg, dirs);
    for (int i = 0; i < n; i++) {
      char path[XR_CTL_PATH_MAX];
      if (xr_ctl_socket_path(dirs[i], target.ns_pid, path) != 0)
        continue;
      /* A socket only in a directory private to the process's user (or
       * the one given): anything else could be someone else's impostor. */
      const char *why = forced_dir ? NULL : xr_ctl_check_dir(dirs[i], (uid_t)uid);
      if (why != NULL) {
        struct stat st;
        if (lstat(dirs[i], &st) == 0)
          fprintf(stderr, "xrayctl: skipping '%s': %s\n", dirs[i], why);
        continue;
      }
      int fd = dial(path);
      if (fd >= 0 && served_by(fd, target.pid, path, true))
        return fd;
      if (fd == -EACCES || fd == -EPERM)
        denied = true;
      else if (fd == -ECONNREFUSED && target.ns_pid == pid)
        remove_if_stale(path, pid);
    }
  }
  if (denied)
    die(EXIT_DENIED, "permission denied: process %ld belongs to uid %ld", pid, uid);
  die(EXIT_NO_PROCESS, "process %ld is not controllable (no control socket: was "
      "it started with XRAY_OPTIONS=xray_control=true?)", pid);
  return -1;
}

static char no_reply[1]; /* the text of a reply never read */

struct reply {
  char *text; /* NUL-terminated */
  size_t len;
};

/* Sends one request and reads the whole reply (the program closes the
 * connection after it). Returns 0, or -1 when the reply is cut short. */
static int exchange(int fd, const char *request, struct reply *out) {
  out->text = no_reply;
  out->len = 0;
  size_t n = strlen(request);
  if (n > XR_CTL_MAX_REQUEST)
    usage("request too long (patterns and options: at most about 4000 bytes)");
  for (size_t at = 0; at < n;) {
    ssize_t w = send(fd, request + at, n - at, MSG_NOSIGNAL);
    if (w <= 0)
      return -1;
    at += (size_t)w;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  if (buf == NULL)
    return -1;
  for (;;) {
    if (len == cap) {
      if (cap >= (1 << 24))
        break;
      char *bigger = realloc(buf, 2 * cap + 1);
      if (bigger == NULL)
        break; /* what was read is kept; the reply counts as cut short */
      buf = bigger;
      cap *= 2;
    }
    ssize_t got = recv(fd, buf + len, cap - len, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    len += (size_t)got;
  }
  buf[len] = '\0';
  out->text = buf;
  out->len = len;
  return len >= 4 && strcmp(buf + len - 4, "end\n") == 0 ? 0 : -1;
}

/* record and top: Ctrl-C (or SIGTERM) ends the window early. The
 * connection's sending half is closed, which the program reads as "stop
 * now"; it still stops, writes, restores, and answers (files, or the top
 * rows of the shortened interval). top then ends. */
static volatile int early_fd = -1;
static volatile sig_atomic_t interrupted;
static void end_early(int sig) {
  (void)sig;
  interrupted = 1;
  if (early_fd >= 0)
    shutdown(early_fd, SHUT_WR);
}

/* What the program sends is printed: control bytes (terminal escapes from
 * a hostile program's name, say) become '?'. */
static void printable(char *s) {
  for (; *s; s++)
    if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
      *s = '?';
}

/* Runs one request against pid: prints the body (or hands it back) and
 * exits on failure with the documented status. */
static char *call(long pid, const char *fmt, ...) {
  char request[XR_CTL_MAX_REQUEST + 64];
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(request, sizeof request, XR_CTL_MAGIC " ");
  vsnprintf(request + n, sizeof request - (size_t)n - 1, fmt, ap);
  va_end(ap);
  /* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.strcpy): vsnprintf left it a byte */
  strcat(request, "\n");
  int fd = connect_pid(pid);
  if (strncmp(request + n, "record ", 7) == 0 || strncmp(request + n, "top ", 4) == 0) {
    early_fd = fd;
    struct sigaction sa = {.sa_handler = end_early};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
  }
  /* The body handed back lives in the last reply, freed by the next call. */
  static struct reply r;
  if (r.text != NULL && r.text != no_reply)
    free(r.text);
  int rc = exchange(fd, request, &r);
  early_fd = -1;
  close(fd);
  char *nl = strchr(r.text, '\n');
  if (rc != 0 || nl == NULL)
    die(EXIT_REFUSED, "process %ld: reply cut short (did the program exit?)", pid);
  *nl = '\0';
  printable(r.text);
  printable(nl + 1);
  const char *head = r.text;
  if (strcmp(head, XR_CTL_MAGIC " ok") == 0) {
    r.text[r.len - 4] = '\0'; /* drop "end\n" */
    return nl + 1;
  }
  if (strncmp(head, XR_CTL_MAGIC " denied ", 14) == 0)
    die(EXIT_DENIED, "process %ld: %s", pid, head + 14);
  if (strncmp(head, XR_CTL_MAGIC " error ", 13) == 0)
    die(EXIT_REFUSED, "process %ld: %s", pid, head + 13);
  die(EXIT_REFUSED, "process %ld: unexpected reply '%s'", pid, head);
  return NULL;
}

/* Checks what the runtime will check, so usage errors exit 2, not 1. */
static void check_text(const char *what, const char *s) {
  if (*s == '\0')
    usage("empty argument");
  for (const char *p = s; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
      die(EXIT_USAGE, "%s may hold printable ASCII only", what);
}

/* The host PIDs `list` has printed: a program is listed once, however
 * many ways lead to its socket. */
static long *listed;
static size_t n_listed, cap_listed;
static bool was_listed(long pid) {
  for (size_t i = 0; i < n_listed; i++)
    if (listed[i] == pid)
      return true;
  return false;
}
static void note_listed(long pid) {
  if (n_listed == cap_listed) {
    size_t cap = cap_listed ? 2 * cap_listed : 64;
    long *bigger = realloc(listed, cap * sizeof *bigger);
    if (bigger == NULL)
      return; /* a program may then be listed twice; nothing worse */
    listed = bigger;
    cap_listed = cap;
  }
  listed[n_listed++] = pid;
}

/* Asks the program at fd for its `hello` line ("PID PROGRAM MODE STATE",
 * PID its own) and prints it under host_pid, with "ns-pid=<its own>"
 * appended when the two differ (a program in a PID namespace). */
static void print_hello(int fd, long host_pid) {
  /* A program that never answers (a hostile container's) cannot hold
   * `list`: hello is answered at once, even while record or top waits. */
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct reply r;
  if (exchange(fd, XR_CTL_MAGIC " hello\n", &r) == 0 &&
      strncmp(r.text, XR_CTL_MAGIC " ok\n", 10) == 0) {
    r.text[r.len - 4] = '\0';
    char *line = r.text + 10;
    printable(line);
    char *end;
    long own = strtol(line, &end, 10);
    size_t rest = strcspn(end, "\n");
    if (own > 0 && *end == ' ' && host_pid > 0 && own != host_pid)
      printf("%ld%.*s ns-pid=%ld\n", host_pid, (int)rest, end, own);
    else
      fputs(line, stdout);
  }
  if (r.text != no_reply)
    free(r.text);
}

/* The programs of this user in its own directories (as always), then
 * those in other roots or mount namespaces (containers): every process
 * whose root this user may open (root: all; others: their own), looked
 * for as `status PID` would. */
static void cmd_list(void) {
  char dirs[4][XR_CTL_PATH_MAX];
  int n = candidate_dirs((long)geteuid(), getenv("XDG_RUNTIME_DIR"), dirs);
  for (int i = 0; i < n; i++) {
    if (!forced_dir && xr_ctl_check_dir(dirs[i], geteuid()) != NULL)
      continue;
    DIR *d = opendir(dirs[i]);
    if (d == NULL)
      continue;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      char *end;
      long pid = strtol(e->d_name, &end, 10);
      if (pid <= 0 || strcmp(end, ".sock") != 0)
        continue;
      char path[XR_CTL_PATH_MAX];
      if (xr_ctl_socket_path(dirs[i], pid, path) != 0)
        continue;
      int fd = dial(path);
      if (fd < 0) {
        if (fd == -ECONNREFUSED || fd == -ENOENT)
          remove_if_stale(path, pid);
        continue;
      }
      /* A program of another PID namespace may share the directory: its
       * socket's name is its own PID, the kernel tells ours. */
      long by = listener_pid(fd);
      if (by <= 0 || !was_listed(by)) {
        print_hello(fd, by > 0 ? by : pid);
        note_listed(by > 0 ? by : pid);
      }
      close(fd);
    }
    closedir(d);
  }
  if (forced_dir)
    return;
  DIR *proc = opendir("/proc");
  if (proc == NULL)
    return;
  struct dirent *e;
  while ((e = readdir(proc)) != NULL) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end || was_listed(pid))
      continue;
    struct ctl_target t;
    if (ctl_target_open(pid, &t) != 0)
      continue;
    if (t.root_fd >= 0 && (geteuid() == 0 || (uid_t)t.uid == geteuid())) {
      char xdg_buf[XR_CTL_PATH_MAX];
      const char *xdg = ctl_process_xdg(pid, xdg_buf, sizeof xdg_buf);
      bool denied = false; /* list names no refusal */
      int fd = dial_target_in_root(&t, xdg, false, &denied);
      if (fd >= 0) {
        print_hello(fd, pid);
        note_listed(pid);
        close(fd);
      }
    }
    ctl_target_close(&t);
  }
  closedir(proc);
}

/* Opens src, a file the program named, for reading: never through a
 * symlink at its end; in a container, resolved inside the program's root
 * (the path is the program's). -1 with errno. */
static int open_program_file(const char *src) {
  if (target.root_fd >= 0)
    return ctl_open_in_root(target.root_fd, src, O_RDONLY | O_NONBLOCK);
  return open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
}

/* Copies src to dst (the user's own file: created or truncated). The
 * program is trusted no further than its uid: src must be a regular file
 * that uid owns, not a symlink, so a program of another user cannot make
 * root's xrayctl copy out a file it could not read itself. in: src opened. */
static void copy_open_file(int in, const char *src, const char *dst, long uid) {
  struct stat st;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || (long)st.st_uid != uid)
    die(EXIT_REFUSED, "'%s' is not a regular file of uid %ld: not copied", src, uid);
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    die(EXIT_USAGE, "cannot create '%s': %s", dst, strerror(errno));
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      die(EXIT_REFUSED, "writing '%s': %s", dst, strerror(errno));
  close(in);
  if (close(out) != 0 || n < 0)
    die(EXIT_REFUSED, "writing '%s' failed", dst);
}

static void copy_file(const char *src, const char *dst, long uid) {
  int in = open_program_file(src);
  if (in < 0)
    die(EXIT_REFUSED, "cannot read '%s': %s", src, strerror(errno));
  copy_open_file(in, src, dst, uid);
}

/* A trace and its object map: src to dst, then "<src>.map" (written beside
 * a basic or FDR log or snapshot when shared objects registered: it names
 * their ids) to "<dst>.map". Without a map, a "<dst>.map" left from an
 * earlier copy is removed, as it would name another trace's ids. Prints
 * what it wrote, dst last. */
static void copy_trace(const char *src, const char *dst, long uid) {
  char src_map[4096 + 8], dst_map[4096 + 8];
  if (snprintf(src_map, sizeof src_map, "%s.map", src) >= (int)sizeof src_map ||
      snprintf(dst_map, sizeof dst_map, "%s.map", dst) >= (int)sizeof dst_map)
    die(EXIT_REFUSED, "a file name too long to copy (%zu bytes)",
        strlen(src) > strlen(dst) ? strlen(src) : strlen(dst));
  copy_file(src, dst, uid);
  int map = open_program_file(src_map);
  if (map >= 0) {
    copy_open_file(map, src_map, dst_map, uid);
    printf("%s\n", dst_map);
  } else if (errno != ENOENT) {
    die(EXIT_REFUSED, "cannot read '%s': %s", src_map, strerror(errno));
  } else if (unlink(dst_map) == 0) {
    fprintf(stderr, "xrayctl: removed '%s': the trace has no object map\n", dst_map);
  }
  printf("%s\n", dst);
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

static void cmd_record(long pid, int argc, char **argv) {
  const char *seconds = NULL, *mode = "fdr", *patterns = "*", *output = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc)
      usage("record: an option without its value");
    if (strcmp(a, "--seconds") == 0)
      seconds = argv[++i];
    else if (strcmp(a, "--mode") == 0)
      mode = argv[++i];
    else if (strcmp(a, "--patch") == 0)
      patterns = argv[++i];
    else if (strcmp(a, "-o") == 0)
      output = argv[++i];
    else
      usage("record: unknown option");
  }
  if (seconds == NULL)
    usage("record needs --seconds S");
  char *end;
  long s = strtol(seconds, &end, 10);
  if (*end || s < 1 || s > 3600)
    usage("--seconds must be 1 to 3600");
  if (xr_ctl_mode_name(mode) == NULL)
    usage("--mode must be basic, fdr or profiling");
  check_text("patterns", patterns);
  /* FILE's suffix chooses the trace the mode writes beside its log. */
  static const struct {
    const char *suffix, *word;
  } traces[] = {{".json", "chrome"}, {".pftrace", "perfetto"}};
  const char *suffix = NULL, *word = "xray";
  for (size_t i = 0; output && i < sizeof traces / sizeof traces[0]; i++)
    if (ends_with(output, traces[i].suffix)) {
      suffix = traces[i].suffix;
      word = traces[i].word;
    }
  char *files = call(pid, "record %ld %s %s %s", s, mode, word, patterns);
  fputs(files, stdout);
  if (output == NULL)
    return;
  char first[4096];
  if (sscanf(files, "%4095[^\n]", first) != 1)
    die(EXIT_REFUSED, "the program wrote no file (nothing recorded?)");
  if (suffix) { /* the trace beside the log: "<log><suffix>", if it fits */
    size_t n = strlen(first);
    if (n + strlen(suffix) + 1 > sizeof first)
      die(EXIT_REFUSED, "the program named a file too long to copy (%zu bytes)", n);
    memcpy(first + n, suffix, strlen(suffix) + 1);
  }
  if (suffix) { /* the trace names its functions itself */
    copy_file(first, output, target.uid);
    printf("%s\n", output);
  } else {
    copy_trace(first, output, target.uid);
  }
}

/* snapshot PID [-o FILE]: FILE (and FILE.map) a copy of the snapshot. */
static void cmd_snapshot(long pid, int argc, char **argv) {
  if (argc != 0 && (argc != 2 || strcmp(argv[0], "-o") != 0))
    usage("snapshot takes PID [-o FILE]");
  char *path = call(pid, "snapshot");
  fputs(path, stdout);
  if (argc == 0)
    return;
  path[strcspn(path, "\n")] = '\0';
  if (path[0] == '\0')
    die(EXIT_REFUSED, "the program named no snapshot");
  copy_trace(path, argv[1], target.uid);
}

static void show_top(const char *rows, bool batch, int iteration, long pid,
                     long ms) {
  if (batch) {
    printf("# iteration %d, pid %ld, interval %ld ms\n%s", iteration, pid, ms, rows);
    fflush(stdout);
    return;
  }
  printf("\033[H\033[2Jxrayctl top: pid %ld, last %.1f s, all threads\n\n", pid,
         ms / 1000.0);
  printf("%12s %12s %12s  %s\n", "calls", "local ms", "total ms", "function");
  const char *p = rows;
  while (*p) {
    unsigned long long calls, local, total;
    int used = 0;
    /* NOLINTNEXTLINE(cert-err34-c): glibc saturates; the numbers are only shown */
    if (*p != '#' && sscanf(p, "%llu %llu %llu %n", &calls, &local, &total, &used) == 3)
      printf("%12llu %12.3f %12.3f  %.*s\n", calls, local / 1e6, total / 1e6,
             (int)strcspn(p + used, "\n"), p + used);
    p += strcspn(p, "\n");
    if (*p)
      p++;
  }
  fflush(stdout);
}

static void cmd_top(long pid, int argc, char **argv) {
  long ms = 1000, iterations = -1;
  bool batch = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--batch") == 0) {
      batch = true;
    } else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc) {
      char *end;
      double s = strtod(argv[++i], &end);
      if (*end || !(s >= 0.1 && s <= 60))
        usage("--interval must be 0.1 to 60 seconds");
      ms = (long)(s * 1000 + 0.5);
    } else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      char *end;
      iterations = strtol(argv[++i], &end, 10);
      if (*end || iterations < 1)
        usage("--iterations must be a positive number");
    } else {
      usage("top: unknown option");
    }
  }
  if (iterations < 0)
    iterations = batch ? 1 : 0; /* 0: until interrupted */
  for (long k = 1; (iterations == 0 || k <= iterations) && !interrupted; k++)
    show_top(call(pid, "top %ld %d", ms, batch ? 100 : 25), batch, (int)k, pid, ms);
}

int main(int argc, char **argv) {
  int i = 1;
  forced_dir = getenv("XRAYCTL_DIR");
  if (forced_dir && !*forced_dir)
    forced_dir = NULL;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
      puts("xrayctl " XRAY_RUNTIME_VERSION);
      return 0;
    }
    if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
      forced_dir = argv[++i];
    else
      usage("unknown option");
  }
  if (i >= argc)
    usage(NULL);
  const char *cmd = argv[i++];
  int rest = argc - i;
  if (strcmp(cmd, "report") == 0)
    return ctl_cmd_report(rest, argv + i);
  if (strcmp(cmd, "convert") == 0)
    return ctl_cmd_convert(rest, argv + i);
  if (strcmp(cmd, "list") == 0) {
    if (rest != 0)
      usage("list takes no argument");
    cmd_list();
    return 0;
  }
  static const char *const with_pid[] = {"status", "patch", "unpatch", "start", "stop",
                                         "flush", "snapshot", "record", "top", "budget",
                                         "args"};
  bool known = false;
  for (size_t k = 0; k < sizeof with_pid / sizeof with_pid[0]; k++)
    known |= strcmp(cmd, with_pid[k]) == 0;
  if (!known)
    usage("unknown command");
  if (rest < 1)
    usage("missing PID");
  long pid = parse_pid(argv[i++]);
  rest--;
  char **args = argv + i;
  if (strcmp(cmd, "record") == 0) {
    cmd_record(pid, rest, args);
    return 0;
  }
  if (strcmp(cmd, "top") == 0) {
    cmd_top(pid, rest, args);
    return 0;
  }
  if (strcmp(cmd, "snapshot") == 0) {
    cmd_snapshot(pid, rest, args);
    return 0;
  }
  if (strcmp(cmd, "patch") == 0 || strcmp(cmd, "unpatch") == 0) {
    if (rest != 1)
      usage("patch and unpatch take PID PATTERNS");
    check_text("patterns", args[0]);
    fputs(call(pid, "%s %s", cmd, args[0]), stdout);
    return 0;
  }
  if (strcmp(cmd, "budget") == 0) {
    if (rest != 1)
      usage("budget takes PID PERCENT");
    char percent[16];
    fputs(call(pid, "budget %s", wire_percent(args[0], percent, sizeof percent)), stdout);
    return 0;
  }
  if (strcmp(cmd, "args") == 0) {
    if (rest > 1)
      usage("args takes PID [SPEC | --clear] (quote a SPEC that holds ';' or spaces)");
    if (rest == 1)
      check_text("SPEC", args[0]);
    fputs(rest == 1 ? call(pid, "args %s", args[0]) : call(pid, "args"), stdout);
    return 0;
  }
  if (strcmp(cmd, "start") == 0) {
    if (rest < 1 || rest > 2)
      usage("start takes PID MODE [OPTIONS]");
    if (xr_ctl_mode_name(args[0]) == NULL)
      usage("MODE must be xray-basic, xray-fdr, xray-profiling, basic, fdr or profiling");
    if (rest == 2)
      check_text("options", args[1]);
    fputs(rest == 2 ? call(pid, "start %s %s", args[0], args[1])
                    : call(pid, "start %s", args[0]),
          stdout);
    return 0;
  }
  if (rest != 0)
    usage("too many arguments");
  const char *body = call(pid, "%s", cmd);
  if (strcmp(cmd, "status") == 0 && target.ns_pid != pid)
    printf("host pid: %ld\n", pid); /* the body's "pid:" is the program's own */
  fputs(body, stdout);
  return 0;
}
