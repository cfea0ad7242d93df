/* Socket directories and their checks (control_path.h). lstat, never stat:
 * a symlink is refused, not followed. mkdir's mode is cut by the umask, so
 * the result is checked, never assumed; a directory made by someone else
 * (another owner, wider permissions) is refused rather than fixed, since
 * fixing it would hand our socket to whoever can already reach it. */
#include "control_path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int xr_ctl_default_dirs(uid_t uid, const char *xdg,
                        char dirs[2][XR_CTL_PATH_MAX]) {
  int n = 0;
  struct stat st;
  if (xdg != NULL && xdg[0] == '/' && lstat(xdg, &st) == 0 &&
      S_ISDIR(st.st_mode) && st.st_uid == uid) {
    int w = snprintf(dirs[n], XR_CTL_PATH_MAX, "%s/xray", xdg);
    if (w > 0 && w < XR_CTL_PATH_MAX - 24) /* room for "/<pid>.sock" */
      n++;
  }
  snprintf(dirs[n++], XR_CTL_PATH_MAX, "/tmp/xray-%lu", (unsigned long)uid);
  return n;
}

int xr_ctl_socket_path(const char *dir, long pid, char out[XR_CTL_PATH_MAX]) {
  int w = snprintf(out, XR_CTL_PATH_MAX, "%s/%ld.sock", dir, pid);
  return w > 0 && w < XR_CTL_PATH_MAX ? 0 : -1;
}

const char *xr_ctl_check_dir_stat(const struct stat *st, uid_t uid) {
  if (S_ISLNK(st->st_mode))
    return "the directory is a symbolic link";
  if (!S_ISDIR(st->st_mode))
    return "the path is not a directory";
  if (st->st_uid != uid)
    return "the directory belongs to another user";
  if ((st->st_mode & 07777) != 0700)
    return "the directory's permissions are not 0700";
  return NULL;
}

const char *xr_ctl_check_dir(const char *dir, uid_t uid) {
  struct stat st;
  if (dir[0] != '/')
    return "the directory is not an absolute path";
  if (lstat(dir, &st) != 0)
    return errno == ENOENT ? "the directory does not exist"
                           : "the directory cannot be examined";
  return xr_ctl_check_dir_stat(&st, uid);
}

const char *xr_ctl_make_dir(const char *dir, uid_t uid) {
  if (dir[0] == '/' && mkdir(dir, 0700) != 0 && errno != EEXIST)
    return errno == ENOENT ? "its parent directory does not exist"
                           : "the directory cannot be created";
  return xr_ctl_check_dir(dir, uid);
}
