/* __m512d arguments and result through the argument trampolines, while
 * the hook sets every zmm register to all ones (compiled with -mavx512f,
 * so they travel in zmm0-1 with their upper halves set: the trampolines'
 * whole-zmm form; called only where the CPU has AVX-512). */
#include <immintrin.h>

#include "values.h"

FN __m512d f_vec512(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
void *const f_vec512_fn = (void *)f_vec512;

NOX void test_vec512(void) {
  int before = failures;
  __m512d a = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1), b = _mm512_set1_pd(100);
  nlogged = 0;
  __m512d c = CALL(f_vec512)(a, b);
  const struct rec *l = expect_log("f_vec512", (void *)f_vec512, 1, 1);
  double out[8];
  _mm512_storeu_pd(out, c);
  for (int i = 0; i < 8; i++)
    EXPECT(out[i] == 101 + i, "f_vec512 lane %d = %g", i, out[i]);
  EXPECT(l[0].r.fpr[0] == bits_d(1.0) && l[0].r.fpr[1] == bits_d(100.0), "f_vec512 fprs");
  EXPECT(l[1].r.fpr[0] == bits_d(101.0), "f_vec512 retval");
  printf("__m512d (zmm kept whole): %s\n", failures > before ? "FAILED" : "ok");
}
