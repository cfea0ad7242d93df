/* __m256d arguments and result through the argument trampolines, while
 * the hook sets every ymm register to all ones (compiled with -mavx, so
 * they travel in ymm0-1; called only where the CPU has AVX). */
#include <immintrin.h>

#include "values.h"

FN __m256d f_vec(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
void *const f_vec_fn = (void *)f_vec;

NOX void test_vec(void) {
  int before = failures;
  __m256d a = _mm256_set_pd(4.0, 3.0, 2.0, 1.0), b = _mm256_set_pd(40.0, 30.0, 20.0, 10.0);
  nlogged = 0;
  __m256d c = CALL(f_vec)(a, b);
  const struct rec *l = expect_log("f_vec", (void *)f_vec, 1, 1);
  double out[4];
  _mm256_storeu_pd(out, c);
  EXPECT(out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44,
         "f_vec returned %g %g %g %g", out[0], out[1], out[2], out[3]);
  EXPECT(l[0].r.fpr[0] == bits_d(1.0) && l[0].r.fpr[1] == bits_d(10.0), "f_vec fprs");
  EXPECT(l[1].r.fpr[0] == bits_d(11.0), "f_vec retval");
  printf("__m256d (ymm kept whole): %s\n", failures > before ? "FAILED" : "ok");
}
