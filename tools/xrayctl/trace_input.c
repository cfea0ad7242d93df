/* A trace file through one buffer. See trace_input.h. */
#define _GNU_SOURCE
#include "trace_input.h"

#include <errno.h>
#include <pthread.h>
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
  ctl_in_read_ahead(in, false);
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

/* ---- read-ahead ------------------------------------------------------------ */

/* The reading thread and the caller hand one request back and forth under
 * lock: the caller asks for (off, want), the thread answers with len. */
struct ctl_ahead {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  uint8_t *buf;
  size_t cap;
  int fd;
  uint64_t off;
  size_t want, len;
  int err;
  bool asked, done, quit;
  /* the caller's: a request not yet taken back; chunks in a row that were
   * not ready when wanted (the thread gets no CPU of its own: the caller
   * then reads alone, no slower than waiting for it) */
  bool pending;
  unsigned late;
};

/* Chunks in a row not ready when wanted before the caller reads alone. */
#define AHEAD_LATE_MAX 3

static void *ahead_loop(void *arg) {
  struct ctl_ahead *a = arg;
  pthread_mutex_lock(&a->lock);
  for (;;) {
    while (!a->asked && !a->quit)
      pthread_cond_wait(&a->cond, &a->lock);
    if (a->quit)
      break;
    a->asked = false;
    uint64_t off = a->off;
    size_t want = a->want;
    pthread_mutex_unlock(&a->lock);
    int err;
    size_t len = read_at(a->fd, a->buf, want, off, &err);
    pthread_mutex_lock(&a->lock);
    a->len = len;
    a->err = err;
    a->done = true;
    pthread_cond_broadcast(&a->cond);
  }
  pthread_mutex_unlock(&a->lock);
  return NULL;
}

/* Waits for the request in flight, if any. */
static void ahead_wait(struct ctl_ahead *a) {
  if (!a->pending)
    return;
  pthread_mutex_lock(&a->lock);
  while (!a->done)
    pthread_cond_wait(&a->cond, &a->lock);
  pthread_mutex_unlock(&a->lock);
  a->pending = false;
}

/* Asks for the chunk at off (none past the end, none once the thread has
 * fallen behind). */
static void ahead_ask(struct ctl_in *in, uint64_t off) {
  struct ctl_ahead *a = in->ahead;
  ahead_wait(a);
  if (off >= in->size || a->late >= AHEAD_LATE_MAX)
    return;
  pthread_mutex_lock(&a->lock);
  a->off = off;
  a->want = in->size - off < a->cap ? (size_t)(in->size - off) : a->cap;
  a->done = false;
  a->asked = true;
  pthread_cond_broadcast(&a->cond);
  pthread_mutex_unlock(&a->lock);
  a->pending = true;
}

/* The chunk read ahead when it is the one at off, whole and holding n
 * bytes: it becomes the buffer (the old one the next read's). */
static bool ahead_take(struct ctl_in *in, uint64_t off, size_t n) {
  struct ctl_ahead *a = in->ahead;
  if (!a->pending || a->off != off)
    return false;
  pthread_mutex_lock(&a->lock);
  a->late = a->done ? 0 : a->late + 1;
  pthread_mutex_unlock(&a->lock);
  ahead_wait(a);
  if (a->err != 0 || a->len != a->want || a->len < n)
    return false; /* read again the ordinary way, which says why */
  uint8_t *buf = in->buf;
  size_t cap = in->cap;
  in->buf = a->buf;
  in->cap = a->cap;
  a->buf = buf;
  a->cap = cap;
  in->at = off;
  in->len = a->len;
  return true;
}

void ctl_in_read_ahead(struct ctl_in *in, bool on) {
  struct ctl_ahead *a = in->ahead;
  if (!on && a != NULL) {
    pthread_mutex_lock(&a->lock);
    a->quit = true;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    pthread_cond_destroy(&a->cond);
    pthread_mutex_destroy(&a->lock);
    free(a->buf);
    free(a);
    in->ahead = NULL;
  }
  if (!on || a != NULL || in->buf == NULL || in->size <= in->cap)
    return; /* off, already on, or the file is read in one go */
  a = calloc(1, sizeof *a);
  if (a == NULL)
    return;
  a->fd = in->fd;
  a->cap = CTL_IN_CHUNK;
  a->buf = malloc(a->cap);
  bool locks = a->buf != NULL && pthread_mutex_init(&a->lock, NULL) == 0;
  bool cond = locks && pthread_cond_init(&a->cond, NULL) == 0;
  pthread_attr_t attr;
  bool attr_ok = cond && pthread_attr_init(&attr) == 0;
  if (attr_ok) /* pread's frames only: a small stack, few pages to touch */
    pthread_attr_setstacksize(&attr, (size_t)64 << 10);
  bool started = attr_ok && pthread_create(&a->thread, &attr, ahead_loop, a) == 0;
  if (attr_ok)
    pthread_attr_destroy(&attr);
  if (started) {
    in->ahead = a;
    return;
  }
  if (cond)
    pthread_cond_destroy(&a->cond);
  if (locks)
    pthread_mutex_destroy(&a->lock);
  free(a->buf);
  free(a);
}

/* ---- reads ---------------------------------------------------------------- */

/* Fills the buffer from off: as much as fits, at least n bytes (n <= cap). */
static bool fill(struct ctl_in *in, uint64_t off, size_t n) {
  if (in->ahead != NULL && ahead_take(in, off, n)) {
    ahead_ask(in, off + in->len);
    return true;
  }
  if (in->ahead != NULL)
    ahead_wait(in->ahead); /* its buffer is asked for again below */
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
  if (in->ahead != NULL && have == want)
    ahead_ask(in, off + have);
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
