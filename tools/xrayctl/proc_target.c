/* A process's ids and root, read from /proc (proc_target.h). */
#define _GNU_SOURCE
#include "proc_target.h"
#include "proc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Up to cap-1 bytes of a /proc file, NUL-terminated: its length, or -1. A
 * longer file is cut, and then fails the parse that needs what was cut. */
static ssize_t read_small(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t len = 0;
  while (len < cap - 1) {
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  buf[len] = '\0';
  return (ssize_t)len;
}

/* True when path names the same file in both views (st_dev and st_ino). */
static bool same_file(const char *a, const char *b) {
  struct stat x, y;
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
         x.st_ino == y.st_ino;
}

int ctl_target_open(long pid, struct ctl_target *t) {
  char path[64], buf[16384];
  long long v;
  t->root_fd = -1;
  t->pid = pid;
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  if (read_small(path, buf, sizeof buf) <= 0)
    return -1;
  if (!ctl_status_field(buf, "Uid", 1, &v))
    return -1;
  t->uid = (long)v;
  /* NSpid: its PID in each namespace from ours down to its own; absent on
   * kernels before 4.1, where no namespace is told apart. */
  t->ns_pid = ctl_status_field(buf, "NSpid", -1, &v) ? (long)v : pid;
  t->ns_uid = t->uid;
  char ns[64];
  snprintf(ns, sizeof ns, "/proc/%ld/ns/user", pid);
  snprintf(path, sizeof path, "/proc/%ld/uid_map", pid);
  /* uid_map says "inside outside" as seen from here only for another
   * namespace than ours (for ours it maps ours to its parent). */
  if (!same_file(ns, "/proc/self/ns/user") && read_small(path, buf, sizeof buf) > 0) {
    long u = ctl_uid_inside(buf, t->uid);
    if (u >= 0)
      t->ns_uid = u;
  }
  snprintf(path, sizeof path, "/proc/%ld/root", pid);
  int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0)
    return 0;
  snprintf(ns, sizeof ns, "/proc/%ld/ns/mnt", pid);
  if (same_file(path, "/") && same_file(ns, "/proc/self/ns/mnt")) {
    close(root);
    return 0;
  }
  t->root_fd = root;
  return 0;
}

void ctl_target_close(struct ctl_target *t) {
  if (t->root_fd >= 0)
    close(t->root_fd);
  t->root_fd = -1;
}

/* One component at a time, none a symlink, no "..": stricter than
 * RESOLVE_IN_ROOT (a container whose /tmp is a symlink is not reached). */
static int open_by_components(int root_fd, const char *path, int flags) {
  char copy[PATH_MAX];
  if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int dir = dup(root_fd);
  if (dir < 0)
    return -1;
  char *save = NULL;
  char *part = strtok_r(copy, "/", &save);
  if (part == NULL) {
    close(dir);
    errno = EINVAL;
    return -1;
  }
  while (part != NULL) {
    char *next = strtok_r(NULL, "/", &save);
    if (strcmp(part, "..") == 0) {
      close(dir);
      errno = EXDEV;
      return -1;
    }
    if (strcmp(part, ".") != 0 || next == NULL) {
      int f = next ? openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                   : openat(dir, part, flags | O_NOFOLLOW | O_CLOEXEC);
      int e = errno;
      close(dir);
      if (f < 0) {
        errno = e;
        return -1;
      }
      dir = f;
    }
    part = next;
  }
  return dir;
}

/* struct open_how and the resolve flags of openat2(2) (Linux 5.6 on). */
struct ctl_open_how {
  uint64_t flags, mode, resolve;
};
enum { CTL_RESOLVE_NO_MAGICLINKS = 0x02, CTL_RESOLVE_IN_ROOT = 0x10 };
#ifndef SYS_openat2
#define SYS_openat2 437 /* the same on every architecture */
#endif

int ctl_open_in_root(int root_fd, const char *path, int flags) {
  if (path[0] != '/') {
    errno = EINVAL;
    return -1;
  }
  /* XRAYCTL_RESOLVE=components: the older kernels' way, for tests. */
  const char *how_env = getenv("XRAYCTL_RESOLVE");
  if (how_env == NULL || strcmp(how_env, "components") != 0) {
    struct ctl_open_how how = {(uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC), 0,
                               CTL_RESOLVE_IN_ROOT | CTL_RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof how);
    /* ENOSYS: no openat2; EPERM: a seccomp filter that does not know it;
     * E2BIG, EINVAL: a kernel that does not know a flag. */
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG && errno != EINVAL))
      return (int)fd;
  }
  return open_by_components(root_fd, path, flags);
}

const char *ctl_process_xdg(long pid, char *out, size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/environ", pid);
  static char env[1 << 16];
  ssize_t n = read_small(path, env, sizeof env);
  return n > 0 ? ctl_environ_value(env, (size_t)n, "XDG_RUNTIME_DIR", out, cap)
               : NULL;
}
