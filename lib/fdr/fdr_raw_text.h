/* Text without stdio, for the snapshot writer (fdr_snapshot.c): it runs in
 * signal handlers, where snprintf is not async-signal-safe. A string
 * builder into the caller's array (file names, one-line messages), not a
 * writer: the files themselves go through core/output/text_out.h or the log
 * writer. Bounded: a string that does not fit is cut, always
 * NUL-terminated. Numbers come from the one formatter, xr_u64_digits. */
#ifndef XR_FDR_RAW_TEXT_H
#define XR_FDR_RAW_TEXT_H

#include "core/base/common.h"
#include "core/output/text_out.h"

struct text {
  char *p;
  size_t len, cap;
};
static inline void put_str(struct text *t, const char *s) {
  while (*s && t->len + 1 < t->cap)
    t->p[t->len++] = *s++;
  t->p[t->len] = 0;
}
/* Decimal, at least `width` digits (zero-padded). */
static inline void put_u64w(struct text *t, uint64_t v, int width) {
  char d[24];
  for (size_t i = xr_u64_digits(d, v, width); i < sizeof d &&
                                              t->len + 1 < t->cap;)
    t->p[t->len++] = d[i++];
  t->p[t->len] = 0;
}
static inline void put_u64(struct text *t, uint64_t v) { put_u64w(t, v, 1); }
static inline void put_i64(struct text *t, int64_t v) {
  if (v < 0) {
    put_str(t, "-");
    put_u64(t, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(t, (uint64_t)v);
  }
}

#endif
