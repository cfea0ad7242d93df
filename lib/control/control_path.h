/* Where control sockets live, and the checks that keep them private
 * (docs/control.md "Security"). Shared, libc only, by the runtime
 * (lib/control) and the client (tools/xrayctl). */
#ifndef XR_CONTROL_PATH_H
#define XR_CONTROL_PATH_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* sizeof(struct sockaddr_un.sun_path) on Linux. */
#define XR_CTL_PATH_MAX 108

/* The default directories of uid's sockets, best first, into dirs: with
 * `xdg` (an XDG_RUNTIME_DIR, may be NULL) when it is an absolute directory
 * owned by uid, "<xdg>/xray"; always "/tmp/xray-<uid>". Returns how many
 * (1 or 2). */
int xr_ctl_default_dirs(uid_t uid, const char *xdg,
                        char dirs[2][XR_CTL_PATH_MAX]);

/* "<dir>/<pid>.sock" into out[XR_CTL_PATH_MAX]. Returns 0, or -1 when it
 * would not fit a socket address. */
int xr_ctl_socket_path(const char *dir, long pid, char out[XR_CTL_PATH_MAX]);

/* NULL when dir is a directory (not a symlink) owned by uid with mode
 * 0700 exactly; otherwise why not, in words (static text). */
const char *xr_ctl_check_dir(const char *dir, uid_t uid);

/* The same rule for what lstat or fstat said of a directory (xrayctl
 * checks a descriptor it opened inside a container's root). */
const char *xr_ctl_check_dir_stat(const struct stat *st, uid_t uid);

/* Creates dir with mode 0700 when missing (its parent must exist), then
 * checks it as xr_ctl_check_dir does: an existing directory is used only
 * when it already passes, never repaired. NULL or why not. */
const char *xr_ctl_make_dir(const char *dir, uid_t uid);

#endif
