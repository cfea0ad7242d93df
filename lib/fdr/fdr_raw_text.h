/* Text without stdio, for the snapshot writer (fdr_snapshot.c): it runs in
 * signal handlers, where snprintf is not async-signal-safe. Bounded: a
 * string that does not fit is cut, always NUL-terminated. */
#ifndef XR_FDR_RAW_TEXT_H
#define XR_FDR_RAW_TEXT_H

#include "core/common.h"

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
  int n = 0;
  do {
    d[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v && n < 24);
  while (n < width && n < 24)
    d[n++] = '0';
  while (n > 0 && t->len + 1 < t->cap)
    t->p[t->len++] = d[--n];
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
