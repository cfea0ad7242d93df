/* Buffered writer for the readable files. See text_out.h. */
#include "core/output/text_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* True when writing n more bytes at fd's offset would cross RLIMIT_FSIZE:
 * the kernel would raise SIGXFSZ, which kills the program by default. A
 * pipe or socket (no offset) has no such limit. */
static bool beyond_size_limit(int fd, size_t n) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return false;
  off_t at = lseek(fd, 0, SEEK_CUR);
  return at >= 0 && (uint64_t)at + n > (uint64_t)rl.rlim_cur;
}

int xr_write_all(int fd, const void *buf, size_t n) {
  if (beyond_size_limit(fd, n)) {
    errno = EFBIG; /* said by the caller, as for a full disk */
    return -1;
  }
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (w == 0) {
      errno = EIO; /* no progress on a regular file or pipe: give up */
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int xr_text_fd_sink(void *ctx, const void *data, size_t n) {
  return xr_write_all(*(const int *)ctx, data, n);
}

void xr_text_init_buffer(struct xr_text_out *o, xr_sink_fn sink, void *ctx,
                         char *buf, size_t cap) {
  o->sink = sink;
  o->ctx = ctx;
  o->failed = 0;
  o->len = 0;
  o->buf = buf;
  o->cap = cap;
}

void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx) {
  xr_text_init_buffer(o, sink, ctx, o->own, sizeof o->own);
}

static void to_sink(struct xr_text_out *o, const void *data, size_t n) {
  if (n == 0 || o->failed)
    return;
  errno = 0;
  if (o->sink(o->ctx, data, n) != 0)
    o->failed = errno != 0 ? errno : EIO;
}

static void drain(struct xr_text_out *o) {
  to_sink(o, o->buf, o->len);
  o->len = 0;
}

/* A piece that does not fit (or none: n = 0 only drains). */
void xr_text_put_slow(struct xr_text_out *o, const void *data, size_t n) {
  drain(o);
  if (n >= o->cap) { /* would only fill the buffer to empty it */
    to_sink(o, data, n);
    return;
  }
  if (n != 0)
    memcpy(o->buf, data, n);
  o->len = n;
}

void xr_text_str(struct xr_text_out *o, const char *s) {
  xr_text_put(o, s, strlen(s));
}

void xr_text_u64(struct xr_text_out *o, uint64_t v) {
  char d[24];
  size_t i = xr_u64_digits(d, v, 1);
  xr_text_put(o, d + i, sizeof d - i);
}

void xr_text_vprintf(struct xr_text_out *o, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  /* Formatted in place when it fits; else the bytes past len are left over
   * (drain writes only len) and the text is formatted again. */
  size_t room = o->cap - o->len;
  int n = vsnprintf(o->buf + o->len, room, fmt, ap);
  if (n < 0) {
    if (!o->failed)
      o->failed = errno != 0 ? errno : EINVAL; /* said, never cut */
  } else if ((size_t)n < room) {
    o->len += (size_t)n;
  } else if ((size_t)n < o->cap) {
    drain(o);
    vsnprintf(o->buf, o->cap, fmt, again);
    o->len = (size_t)n;
  } else {
    drain(o);
    size_t bytes = (size_t)n + 1;
    char *big = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (big == MAP_FAILED) {
      if (!o->failed)
        o->failed = ENOMEM;
    } else {
      vsnprintf(big, bytes, fmt, again);
      to_sink(o, big, (size_t)n);
      munmap(big, bytes);
    }
  }
  va_end(again);
}

void xr_text_printf(struct xr_text_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  xr_text_vprintf(o, fmt, ap);
  va_end(ap);
}

int xr_text_flush(struct xr_text_out *o) {
  drain(o);
  if (!o->failed)
    return 0;
  errno = o->failed;
  return -1;
}
