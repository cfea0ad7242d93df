/* xrayctl: steers a running program started with XRAY_OPTIONS=xray_control=true
 * through its control socket (docs/control.md). C11, libc only.
 *
 * Exit status: 0 done; 1 the program refused or failed (its message is
 * printed); 2 usage error; 3 no such controllable process; 4 permission
 * denied. */
#define _GNU_SOURCE
#include "control/control_path.h"
#include "control/control_proto.h"
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
#include <sys/un.h>
#include <unistd.h>

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_PROCESS = 3, EXIT_DENIED = 4 };

static const char usage_text[] =
    "usage: xrayctl [--dir DIR] COMMAND [ARGS]\n"
    "       xrayctl --version | --help\n"
    "\n"
    "Steers a program started with XRAY_OPTIONS=\"xray_control=true\" (docs/control.md).\n"
    "\n"
    "  list                        every controllable process of this user:\n"
    "                              PID PROGRAM MODE STATE\n"
    "  status PID                  the program's runtime version, mode, state,\n"
    "                              objects, functions, requests, files\n"
    "  patch PID PATTERNS          patch the functions whose names match (';'-separated\n"
    "                              globs as in xray_patch=; '*' = all): prints how many\n"
    "  unpatch PID PATTERNS        unpatch them: prints how many\n"
    "  start PID MODE [OPTIONS]    start xray-basic|xray-fdr|xray-profiling (or basic,\n"
    "                              fdr, profiling) with that mode's option string\n"
    "  stop PID                    finalize and flush: prints each file written\n"
    "  flush PID                   write without stopping (FDR: a snapshot)\n"
    "  snapshot PID                FDR snapshot: prints its path\n"
    "  record PID --seconds S [--mode M] [--patch PATTERNS] [-o FILE]\n"
    "                              start M (default fdr), patch PATTERNS (default '*'),\n"
    "                              wait S seconds, stop, unpatch: the program is left as\n"
    "                              it was; prints the files; -o copies the trace to FILE\n"
    "                              (FILE.json: the Chrome trace JSON)\n"
    "  top PID [--interval S] [--batch] [--iterations N]\n"
    "                              the functions with the most local time over each\n"
    "                              interval (default 1 s), all threads; --batch prints\n"
    "                              plain text (default 1 iteration)\n"
    "\n"
    "  --version, -V               print xrayctl's version (that of the runtime it\n"
    "                              was built with) and exit\n"
    "\n"
    "The socket is found in DIR (--dir, or XRAYCTL_DIR), else in the process's\n"
    "$XDG_RUNTIME_DIR/xray and /tmp/xray-<uid>.\n"
    "Exit status: 0 done; 1 the program refused or failed; 2 usage error;\n"
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

static long parse_pid(const char *s) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v <= 0 || v > 0x3fffffff)
    usage("PID must be a positive number");
  return v;
}

/* The effective uid of process pid, from /proc; -1 when it does not exist. */
static long process_uid(long pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return -1;
  long uid = -1, real, eff;
  while (fgets(line, sizeof line, f))
    /* NOLINTNEXTLINE(cert-err34-c): the kernel's own uids, in range */
    if (sscanf(line, "Uid: %ld %ld", &real, &eff) == 2) {
      uid = eff;
      break;
    }
  fclose(f);
  return uid;
}

/* The process's XDG_RUNTIME_DIR (readable by its owner and root), or NULL. */
static const char *process_xdg(long pid, char *out, size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/environ", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  static char env[1 << 16];
  ssize_t n = read(fd, env, sizeof env - 1);
  close(fd);
  if (n <= 0)
    return NULL;
  env[n] = '\0';
  for (char *p = env; p < env + n; p += strlen(p) + 1)
    if (strncmp(p, "XDG_RUNTIME_DIR=", 16) == 0) {
      snprintf(out, cap, "%s", p + 16);
      return out;
    }
  return NULL;
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

/* A socket whose process is gone: removed, as its process could not. */
static void remove_if_stale(const char *path, long pid) {
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
    unlink(path);
}

static int connect_pid(long pid) {
  long uid = process_uid(pid);
  if (uid < 0)
    die(EXIT_NO_PROCESS, "no process %ld", pid);
  char xdg_buf[XR_CTL_PATH_MAX];
  const char *xdg = process_xdg(pid, xdg_buf, sizeof xdg_buf);
  if (xdg == NULL && (uid_t)uid == geteuid())
    xdg = getenv("XDG_RUNTIME_DIR");
  char dirs[4][XR_CTL_PATH_MAX];
  int n = candidate_dirs(uid, xdg, dirs);
  bool denied = false;
  for (int i = 0; i < n; i++) {
    char path[XR_CTL_PATH_MAX];
    if (xr_ctl_socket_path(dirs[i], pid, path) != 0)
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
    if (fd >= 0)
      return fd;
    if (fd == -EACCES || fd == -EPERM)
      denied = true;
    else if (fd == -ECONNREFUSED)
      remove_if_stale(path, pid);
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
      struct reply r;
      if (exchange(fd, XR_CTL_MAGIC " hello\n", &r) == 0 &&
          strncmp(r.text, XR_CTL_MAGIC " ok\n", 10) == 0) {
        r.text[r.len - 4] = '\0';
        printable(r.text + 10);
        fputs(r.text + 10, stdout);
      }
      if (r.text != no_reply)
        free(r.text);
      close(fd);
    }
    closedir(d);
  }
}

/* Copies src, a file the program named, to dst (the user's own file:
 * created or truncated). The program is trusted no further than its uid:
 * src must be a regular file that uid owns, not a symlink, so a program of
 * another user cannot make root's xrayctl copy out a file it could not
 * read itself. */
static void copy_file(const char *src, const char *dst, long uid) {
  int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (in < 0)
    die(EXIT_REFUSED, "cannot read '%s': %s", src, strerror(errno));
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
  bool chrome = output && ends_with(output, ".json");
  char *files = call(pid, "record %ld %s %s %s", s, mode, chrome ? "chrome" : "xray",
                     patterns);
  fputs(files, stdout);
  if (output == NULL)
    return;
  char first[4096];
  if (sscanf(files, "%4095[^\n]", first) != 1)
    die(EXIT_REFUSED, "the program wrote no file (nothing recorded?)");
  if (chrome) { /* the JSON beside the log: "<log>.json", if it fits */
    size_t n = strlen(first);
    if (n + sizeof ".json" > sizeof first)
      die(EXIT_REFUSED, "the program named a file too long to copy (%zu bytes)", n);
    memcpy(first + n, ".json", sizeof ".json");
  }
  copy_file(first, output, process_uid(pid));
  printf("%s\n", output);
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
  if (strcmp(cmd, "list") == 0) {
    if (rest != 0)
      usage("list takes no argument");
    cmd_list();
    return 0;
  }
  static const char *const with_pid[] = {"status", "patch", "unpatch", "start", "stop",
                                         "flush", "snapshot", "record", "top"};
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
  if (strcmp(cmd, "patch") == 0 || strcmp(cmd, "unpatch") == 0) {
    if (rest != 1)
      usage("patch and unpatch take PID PATTERNS");
    check_text("patterns", args[0]);
    fputs(call(pid, "%s %s", cmd, args[0]), stdout);
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
  fputs(call(pid, "%s", cmd), stdout);
  return 0;
}
