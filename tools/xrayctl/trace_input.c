/* A trace file through one buffer. See trace_input.h. */
#define _GNU_SOURCE
#include "trace_input.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ctl_in_fail(struct ctl_in *in, uint64_t offset, const char *fmt, ...) {
  if (in->failed)
    return -1;
  in->failed = true;
  in->err_offset = offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(in->err, sizeof in->err, fmt, ap);
  va_end(ap);
  return -1;
}

int ctl_in_open(struct ctl_in *in, int fd, const char *path) {
  memset(in, 0, sizeof *in);
  in->fd = fd;
  in->path = path;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return ctl_in_fail(in, 0, "cannot stat: %s", strerror(errno));
  if (!S_ISREG(st.st_mode))
    return ctl_in_fail(in, 0, "not a regular file");
  in->size = (uint64_t)st.st_size;
  in->cap = in->size < CTL_IN_CHUNK ? (size_t)in->size + 1 : CTL_IN_CHUNK;
  in->buf = malloc(in->cap);
  if (in->buf == NULL)
    return ctl_in_fail(in, 0, "out of memory");
  return 0;
}

void ctl_in_close(struct ctl_in *in) {
  free(in->buf);
  in->buf = NULL;
}

/* Reads up to want bytes at off into buf: how many (fewer: the file
 * shrank since open, or *err says why not). */
static size_t read_at(int fd, uint8_t *buf, size_t want, uint64_t off, int *err) {
  size_t have = 0;
  *err = 0;
  while (have < want) {
    ssize_t got = pread(fd, buf + have, want - have, (off_t)(off + have));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      *err = errno;
      break;
    }
    if (got == 0)
      break;
    have += (size_t)got;
  }
  return have;
}

/* ---- reads ---------------------------------------------------------------- */

/* Fills the buffer from off: as much as fits, at least n bytes (n <= cap). */
static bool fill(struct ctl_in *in, uint64_t off, size_t n) {
  size_t want = in->cap;
  if (in->size - off < want)
    want = (size_t)(in->size - off);
  int err;
  size_t have = read_at(in->fd, in->buf, want, off, &err);
  if (err != 0) {
    ctl_in_fail(in, off + have, "read failed: %s", strerror(err));
    return false;
  }
  in->at = off;
  in->len = have;
  return have >= n;
}

const uint8_t *ctl_in_at(struct ctl_in *in, uint64_t off, size_t n) {
  if (in->failed || off > in->size || in->size - off < n)
    return NULL;
  if (off >= in->at && off - in->at <= in->len && in->len - (off - in->at) >= n)
    return in->buf + (off - in->at);
  if (n > in->cap) {
    if (n > CTL_IN_RECORD_MAX) {
      ctl_in_fail(in, off, "a record of %zu bytes: larger than xrayctl reads "
                  "(%zu MiB)", n, CTL_IN_RECORD_MAX >> 20);
      return NULL;
    }
    uint8_t *bigger = realloc(in->buf, n);
    if (bigger == NULL) {
      ctl_in_fail(in, off, "out of memory for a record of %zu bytes", n);
      return NULL;
    }
    in->buf = bigger;
    in->cap = n;
  }
  if (!fill(in, off, n)) {
    if (!in->failed)
      ctl_in_fail(in, off, "the file shrank while it was read");
    return NULL;
  }
  return in->buf;
}

const uint8_t *ctl_in_window(struct ctl_in *in, uint64_t off, size_t want,
                             size_t *got) {
  *got = 0;
  if (in->failed || off >= in->size)
    return NULL;
  if (off < in->at || off - in->at >= in->len) {
    if (!fill(in, off, 1)) {
      if (!in->failed)
        ctl_in_fail(in, off, "the file shrank while it was read");
      return NULL;
    }
  }
  size_t avail = in->len - (size_t)(off - in->at);
  *got = avail < want ? avail : want;
  return in->buf + (off - in->at);
}
