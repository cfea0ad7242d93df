/* A process as xrayctl reaches it: its uid and PID as seen here and as it
 * sees them inside its own namespaces, and its root directory when that is
 * not ours (a container, a chroot). Everything read from /proc and from
 * inside that root is the process owner's to shape: bounded reads, strict
 * parsing, paths resolved inside the root (docs/control.md "Containers"). */
#ifndef XRAYCTL_PROC_TARGET_H
#define XRAYCTL_PROC_TARGET_H

#include <stddef.h>

struct ctl_target {
  long pid;    /* as seen here (the host's PID) */
  long ns_pid; /* as the program sees it: its getpid(), its socket's name */
  long uid;    /* effective uid, as seen here (what fstat shows) */
  long ns_uid; /* effective uid in its user namespace: its directory's name */
  int root_fd; /* -1: the process shares our root directory and mount
                * namespace; else an O_PATH descriptor of /proc/PID/root */
};

/* Reads pid's ids and root. Returns 0, or -1 when there is no such process
 * (or its status cannot be read or parsed). A root that cannot be opened
 * (another user's process, a non-dumpable one) counts as ours: the
 * process is then looked for as before containers were known. */
int ctl_target_open(long pid, struct ctl_target *t);
void ctl_target_close(struct ctl_target *t);

/* Opens the absolute `path` resolved inside root_fd, as if root_fd were
 * "/": a symlink (absolute or with "..") never leads out of it, and the
 * last component is never followed (O_NOFOLLOW; with O_PATH the link
 * itself is opened, and the caller's fstat sees it). openat2 with
 * RESOLVE_IN_ROOT where the kernel has it; else one component at a time,
 * refusing every symlink and "..". flags get O_CLOEXEC. Returns the fd, or
 * -1 with errno. */
int ctl_open_in_root(int root_fd, const char *path, int flags);

/* The value of XDG_RUNTIME_DIR in pid's environment (readable by its owner
 * and root) into out, or NULL. */
const char *ctl_process_xdg(long pid, char *out, size_t cap);

#endif
