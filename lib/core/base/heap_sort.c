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
                      int (*cmp)(const void *, const void *)) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && cmp(a + child * size, a + (child + 1) * size) < 0)
      child++;
    if (cmp(a + root * size, a + child * size) >= 0)
      return;
    swap(a + root * size, a + child * size, size);
  }
}

void xr_heap_sort(void *base, size_t n, size_t size,
                  int (*cmp)(const void *, const void *)) {
  unsigned char *a = base;
  for (size_t i = n / 2; i-- > 0;)
    sift_down(a, i, n, size, cmp);
  for (size_t end = n; end-- > 1;) {
    swap(a, a + end * size, size);
    sift_down(a, 0, end, size, cmp);
  }
}
