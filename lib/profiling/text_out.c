/* Buffered writer for the profile outputs. See text_out.h. */
#include "profiling/text_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx) {
  o->sink = sink;
  o->ctx = ctx;
  o->failed = 0;
  o->len = 0;
}

static void drain(struct xr_text_out *o) {
  if (o->len != 0 && !o->failed && o->sink(o->ctx, o->buf, o->len) != 0)
    o->failed = 1;
  o->len = 0;
}

void xr_text_put(struct xr_text_out *o, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    if (o->len == sizeof(o->buf))
      drain(o);
    size_t room = sizeof(o->buf) - o->len;
    size_t k = n < room ? n : room;
    memcpy(o->buf + o->len, p, k);
    o->len += k;
    p += k;
    n -= k;
  }
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

void xr_text_printf(struct xr_text_out *o, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  xr_text_put(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

int xr_text_flush(struct xr_text_out *o) {
  drain(o);
  return o->failed ? -1 : 0;
}
