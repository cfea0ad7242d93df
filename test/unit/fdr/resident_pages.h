/* Which pages of a range are resident (mincore), for the tests of how FDR
 * buffers are faulted in (queue_test.c, prefault_test.c). Include after
 * <cmocka.h>. */
#ifndef FDR_TEST_RESIDENT_PAGES_H
#define FDR_TEST_RESIDENT_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* Pages of [from, to) resident in memory. */
static inline size_t resident_pages(const uint8_t *from, const uint8_t *to) {
  uintptr_t a = (uintptr_t)from & ~(uintptr_t)4095;
  size_t n = ((uintptr_t)to - a + 4095) / 4096;
  static unsigned char vec[2048];
  assert_true(n <= sizeof vec);
  assert_int_equal(mincore((void *)a, n * 4096, vec), 0);
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    count += vec[i] & 1;
  return count;
}

/* Pages [from, to) touches. */
static inline size_t pages_spanned(const uint8_t *from, const uint8_t *to) {
  return ((uintptr_t)to + 4095) / 4096 - (uintptr_t)from / 4096;
}

#endif
