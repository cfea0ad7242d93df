/* The one buffered writer of the files the runtime writes from its own
 * text and bytes (cold path only): the object map `<log>.map`, the
 * profile's folded stacks, report and pprof bytes, the Chrome trace JSON.
 * Text and bytes go to a sink function (a file descriptor, or memory in
 * tests). No piece and no formatted line is ever cut, whatever its length
 * (C++ names reach tens of kilobytes): a piece larger than the buffer goes
 * straight to the sink, a formatted one larger than the buffer is formatted
 * once more in its own mapping. The first failure sticks; later writes are
 * ignored. No malloc: it runs at flush, in fork children too. Everything
 * but xr_text_printf is async-signal-safe when the sink is (the fd sink's
 * xr_write_all is). */
#ifndef XR_CORE_TEXT_OUT_H
#define XR_CORE_TEXT_OUT_H

#include "core/base/common.h"

#include <stdarg.h>

/* Writes all n bytes, retrying on EINTR and short writes. Returns 0, or -1
 * with errno set (nothing reported: the caller says what failed); EFBIG,
 * writing nothing, when the bytes would cross RLIMIT_FSIZE (so SIGXFSZ is
 * never raised on the program). Async-signal-safe. */
XR_HIDDEN int xr_write_all(int fd, const void *buf, size_t n);

/* Writes all n bytes: 0, or -1 with errno set. */
typedef int (*xr_sink_fn)(void *ctx, const void *data, size_t n);

struct xr_text_out {
  xr_sink_fn sink;
  void *ctx;
  int failed; /* errno of the first failure (EIO if none was set); 0: none */
  size_t len, cap;
  char *buf;  /* own, or the caller's (xr_text_init_buffer) */
  char own[16384];
};

/* The sink of a file descriptor: ctx points to the int fd. */
XR_HIDDEN int xr_text_fd_sink(void *ctx, const void *data, size_t n);

XR_HIDDEN void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx);
/* The same with the caller's buffer of cap bytes (a writer that drains
 * less often, or only between whole records: xr_text_reserve). */
XR_HIDDEN void xr_text_init_buffer(struct xr_text_out *o, xr_sink_fn sink,
                                   void *ctx, char *buf, size_t cap);

XR_HIDDEN void xr_text_put_slow(struct xr_text_out *o, const void *data,
                                size_t n);
/* Inline: a piece that fits is one memcpy (the Chrome writer puts a dozen
 * per event). */
static inline void xr_text_put(struct xr_text_out *o, const void *data,
                               size_t n) {
  if (n <= o->cap - o->len) {
    __builtin_memcpy(o->buf + o->len, data, n);
    o->len += n;
  } else {
    xr_text_put_slow(o, data, n);
  }
}
/* Writes out what is buffered unless n more bytes fit: a writer that
 * reserves a record's bound first drains only between records, so its file
 * always ends after a whole one. */
static inline void xr_text_reserve(struct xr_text_out *o, size_t n) {
  if (o->cap - o->len < n)
    xr_text_put_slow(o, NULL, 0);
}
XR_HIDDEN void xr_text_str(struct xr_text_out *o, const char *s);
XR_HIDDEN void xr_text_u64(struct xr_text_out *o, uint64_t v);

/* v in decimal, at least width digits (zero-padded, up to 20), at the end
 * of d: returns where they start. The one number formatter (this writer,
 * FDR's async-signal-safe text); async-signal-safe. */
static inline size_t xr_u64_digits(char d[24], uint64_t v, int width) {
  /* Two digits a division: the writers of trace files format two numbers
   * an event, and this was a fifth of a Chrome trace's time. */
  static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                              "25262728293031323334353637383940414243444546474849"
                              "50515253545556575859606162636465666768697071727374"
                              "75767778798081828384858687888990919293949596979899";
  size_t i = 24;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    d[--i] = pairs[2 * r + 1];
    d[--i] = pairs[2 * r];
  }
  if (v >= 10) {
    d[--i] = pairs[2 * v + 1];
    d[--i] = pairs[2 * v];
  } else {
    d[--i] = (char)('0' + v);
  }
  while (24 - i < (size_t)width && i > 4)
    d[--i] = '0';
  return i;
}
/* printf-style, any length. */
XR_HIDDEN void xr_text_printf(struct xr_text_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
XR_HIDDEN void xr_text_vprintf(struct xr_text_out *o, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Writes what is buffered; returns 0 or -1 if any write failed (the errno
 * of the first failure is in o->failed, and in errno). */
XR_HIDDEN int xr_text_flush(struct xr_text_out *o);

#endif
