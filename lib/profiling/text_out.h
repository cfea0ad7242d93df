/* A small buffered writer for the profile outputs (cold path only): text
 * and bytes go to a sink function (a file descriptor, or memory in tests).
 * The first failure sticks; later writes are ignored. */
#ifndef XR_PROFILING_TEXT_OUT_H
#define XR_PROFILING_TEXT_OUT_H

#include "core/common.h"

typedef int (*xr_sink_fn)(void *ctx, const void *data, size_t n);

struct xr_text_out {
  xr_sink_fn sink;
  void *ctx;
  int failed;
  size_t len;
  char buf[16384];
};

XR_HIDDEN void xr_text_init(struct xr_text_out *o, xr_sink_fn sink, void *ctx);
XR_HIDDEN void xr_text_put(struct xr_text_out *o, const void *data, size_t n);
XR_HIDDEN void xr_text_str(struct xr_text_out *o, const char *s);
XR_HIDDEN void xr_text_u64(struct xr_text_out *o, uint64_t v);
/* printf-style, for the report's table rows (up to 1 KiB per call). */
XR_HIDDEN void xr_text_printf(struct xr_text_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes what is buffered; returns 0 or -1 if any write failed. */
XR_HIDDEN int xr_text_flush(struct xr_text_out *o);

#endif
