/* Buffered writer for the readable files. See text_out.h. */
#include "text_out.h"
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int xr_text_fd_sink(void *ctx, const void *data, size_t n) {
  return xr_write_all(*(const int *)ctx, data, n);
}

void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx) {
  o->sink = sink;
  o->ctx = ctx;
  o->failed = 0;
  o->len = 0;
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

void xr_text_put(struct xr_text_out *o, const void *data, size_t n) {
  if (n > sizeof(o->buf) - o->len) {
    drain(o);
    if (n >= sizeof(o->buf)) { /* would only fill the buffer to empty it */
      to_sink(o, data, n);
      return;
    }
  }
  memcpy(o->buf + o->len, data, n);
  o->len += n;
}

void xr_text_str(struct xr_text_out *o, const char *s) {
  xr_text_put(o, s, strlen(s));
}

void xr_text_u64(struct xr_text_out *o, uint64_t v) {
  char tmp[24];
  size_t i = sizeof(tmp);
  do {
    tmp[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  xr_text_put(o, tmp + i, sizeof(tmp) - i);
}

void xr_text_vprintf(struct xr_text_out *o, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  /* Formatted in place when it fits; else the bytes past len are left over
   * (drain writes only len) and the text is formatted again. */
  size_t room = sizeof(o->buf) - o->len;
  int n = vsnprintf(o->buf + o->len, room, fmt, ap);
  if (n < 0) {
    if (!o->failed)
      o->failed = errno != 0 ? errno : EINVAL; /* said, never cut */
  } else if ((size_t)n < room) {
    o->len += (size_t)n;
  } else if ((size_t)n < sizeof(o->buf)) {
    drain(o);
    vsnprintf(o->buf, sizeof(o->buf), fmt, again);
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
