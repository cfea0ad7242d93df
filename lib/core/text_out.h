/* The one buffered writer of the readable files (cold path only): the
 * sidecar `<log>.map`, the profile's folded stacks, report and pprof bytes.
 * Text and bytes go to a sink function (a file descriptor, or memory in
 * tests). No piece and no formatted line is ever cut, whatever its length
 * (C++ names reach tens of kilobytes): a piece larger than the buffer goes
 * straight to the sink, a formatted one larger than the buffer is formatted
 * once more in its own mapping. The first failure sticks; later writes are
 * ignored. No malloc: it runs at flush, in fork children too. */
#ifndef XR_CORE_TEXT_OUT_H
#define XR_CORE_TEXT_OUT_H

#include "common.h"

#include <stdarg.h>

/* Writes all n bytes: 0, or -1 with errno set. */
typedef int (*xr_sink_fn)(void *ctx, const void *data, size_t n);

struct xr_text_out {
  xr_sink_fn sink;
  void *ctx;
  int failed; /* errno of the first failure (EIO if none was set); 0: none */
  size_t len;
  char buf[16384];
};

/* The sink of a file descriptor: ctx points to the int fd. */
XR_HIDDEN int xr_text_fd_sink(void *ctx, const void *data, size_t n);

XR_HIDDEN void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx);
XR_HIDDEN void xr_text_put(struct xr_text_out *o, const void *data, size_t n);
XR_HIDDEN void xr_text_str(struct xr_text_out *o, const char *s);
XR_HIDDEN void xr_text_u64(struct xr_text_out *o, uint64_t v);
/* printf-style, any length. */
XR_HIDDEN void xr_text_printf(struct xr_text_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
XR_HIDDEN void xr_text_vprintf(struct xr_text_out *o, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Writes what is buffered; returns 0 or -1 if any write failed (the errno
 * of the first failure is in o->failed, and in errno). */
XR_HIDDEN int xr_text_flush(struct xr_text_out *o);

#endif
