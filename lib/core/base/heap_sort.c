/* In-place heap sort. See heap_sort.h. */
#include "core/base/heap_sort.h"

static void swap(unsigned char *a, unsigned char *b, size_t size) {
  for (size_t i = 0; i < size; i++) {
    unsigned char t = a[i];
    a[i] = b[i];
    b[i] = t;
  }
}

static void sift_down(unsigned char *a, size_t root, size_t n, size_t size,
                      int (*cmp)(const void *, const void *, void *), void *ctx) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && cmp(a + child * size, a + (child + 1) * size, ctx) < 0)
      child++;
    if (cmp(a + root * size, a + child * size, ctx) >= 0)
      return;
    swap(a + root * size, a + child * size, size);
  }
}

void xr_heap_sort_ctx(void *base, size_t n, size_t size,
                      int (*cmp)(const void *, const void *, void *), void *ctx) {
  unsigned char *a = base;
  for (size_t i = n / 2; i-- > 0;)
    sift_down(a, i, n, size, cmp, ctx);
  for (size_t end = n; end-- > 1;) {
    swap(a, a + end * size, size);
    sift_down(a, 0, end, size, cmp, ctx);
  }
}

/* A plain comparator rides in the context (a pointer to a struct holding
 * it: a function pointer does not convert to void *). */
struct plain_cmp {
  int (*cmp)(const void *, const void *);
};

static int call_plain(const void *a, const void *b, void *ctx) {
  return ((const struct plain_cmp *)ctx)->cmp(a, b);
}

void xr_heap_sort(void *base, size_t n, size_t size,
                  int (*cmp)(const void *, const void *)) {
  struct plain_cmp plain = {cmp};
  xr_heap_sort_ctx(base, n, size, call_plain, &plain);
}
