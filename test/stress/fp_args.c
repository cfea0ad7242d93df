/* Floating-point and vector arguments and returns through patched entry,
 * exit and tail-exit sleds: long double (x87), __m128, __m256, eight double
 * arguments plus stack ones, variadic doubles (%al), float tail calls.
 *
 * argv[1]: "handler": a user handler that does floating-point work on
 * purpose: long double and double arithmetic, and clobbers every xmm/ymm
 * register (vzeroall when AVX exists) -- the runtime must preserve what the
 * instrumented code had live. Or a built-in mode: its lean handlers must
 * not touch them at all. Each function is called patched and unpatched and
 * its result compared bit for bit with an uninstrumented twin. */
#include "stress.h"

#include <immintrin.h>
#include <stdarg.h>

WORK long double ld_fn(long double a, long double b) { return a * b + 1.0L; }
WORK __m128 m128_fn(__m128 a, __m128 b) { return _mm_add_ps(_mm_mul_ps(a, b), a); }
__attribute__((target("avx"))) WORK __m256 m256_fn(__m256 a, __m256 b) {
  return _mm256_add_ps(_mm256_mul_ps(a, b), b);
}
WORK double ten_doubles(double a, double b, double c, double d, double e,
                        double f, double g, double h, double i, double j) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}
WORK double vsum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int k = 0; k < n; k++)
    s += va_arg(ap, double) * (k + 1);
  va_end(ap);
  return s;
}
WORK float f_leaf(float x, float y) { return x * y - 0.5f; }
WORK float f_tail(float x, float y) { return f_leaf(x + 1.0f, y); } /* tail call */
WORK long double ld_chain(long double x) { return ld_fn(x, x) * 2.0L; }

NOINST static long double ld_ref(long double a, long double b) { return a * b + 1.0L; }

static volatile long handler_calls;
static volatile double handler_sink;
NOINST __attribute__((target("avx"))) static void clobber_avx(void) {
  __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                   "xmm13", "xmm14", "xmm15");
}
static bool have_avx;
NOINST static void fp_handler(int32_t id, XRayEntryType type) {
  /* x87 and SSE work with values that differ from the workload's. */
  long double x = (long double)id * 1.000001L;
  for (int i = 0; i < 8; i++)
    x = x * 1.5L - (long double)type / 3.0L;
  double d = 0.1;
  for (int i = 0; i < 8; i++)
    d = d * 3.3 + (double)x;
  handler_sink = d;
  __asm__ volatile("xorps %%xmm0, %%xmm0\n\txorps %%xmm1, %%xmm1\n\t"
                   "pcmpeqd %%xmm2, %%xmm2\n\tpcmpeqd %%xmm7, %%xmm7" ::
                       : "xmm0", "xmm1", "xmm2", "xmm7");
  if (have_avx)
    clobber_avx();
  handler_calls++;
}
NOINST static void fp_handler_arg1(int32_t id, XRayEntryType type, uint64_t a) {
  (void)a;
  fp_handler(id, type);
}

#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

NOINST __attribute__((target("avx"))) static void check_avx(const char *when) {
  __m256 a = _mm256_set_ps(1.5f, -2.25f, 3.0f, 4.125f, 5.5f, 6.0f, -7.75f, 8.0f);
  __m256 b = _mm256_set_ps(0.5f, 0.25f, 2.0f, -1.0f, 3.5f, 1.25f, 9.0f, -0.5f);
  __m256 want = _mm256_add_ps(_mm256_mul_ps(a, b), b);
  volatile __m256 got = m256_fn(a, b);
  __m256 g = got;
  CHECK(SAME(g, want), "%s: __m256 result corrupted", when);
}

NOINST static void check_all(const char *when) {
  for (int i = 0; i < 200; i++) {
    long double a = 1.25L + i, b = -3.0L / (i + 1);
    long double r = ld_fn(a, b), w = ld_ref(a, b);
    CHECK(r == w, "%s: long double result corrupted", when); /* 10 of 16 bytes are value */
    long double c = ld_chain(a), cw = ld_ref(a, a) * 2.0L;
    CHECK(c == cw, "%s: long double chain corrupted", when);
    __m128 x = _mm_set_ps(1.0f + i, 2.5f, -3.25f, 4.0f), y = _mm_set_ps(0.5f, 2.0f, 8.0f, -1.5f);
    __m128 m = m128_fn(x, y), mw = _mm_add_ps(_mm_mul_ps(x, y), x);
    CHECK(SAME(m, mw), "%s: __m128 result corrupted", when);
    double t = ten_doubles(1 + i, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    double tw = (1 + i) + 4.0 + 9 + 16 + 25 + 36 + 49 + 64 + 81 + 100;
    CHECK(t == tw, "%s: ten_doubles %f != %f", when, t, tw);
    double v = vsum(4, 1.5, 2.5, 3.5, (double)i);
    CHECK(v == 1.5 + 5.0 + 10.5 + 4.0 * i, "%s: vsum %f", when, v);
    float f = f_tail(2.0f + i, 3.0f), fw = (2.0f + i + 1.0f) * 3.0f - 0.5f;
    CHECK(SAME(f, fw), "%s: float tail call %f != %f", when, f, fw);
    if (have_avx)
      check_avx(when);
  }
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: %s handler|MODE", argv[0]);
  const char *mode = argv[1];
  have_avx = __builtin_cpu_supports("avx");
  check_all("unpatched");
  if (!stress_is_mode(mode)) {
    CHECK(__xray_set_handler(fp_handler) == 1, "set_handler");
    CHECK(__xray_set_handler_arg1(fp_handler_arg1) == 1, "set_handler_arg1");
  }
  stress_start_mode(mode, stress_default_config(mode));
  CHECK(__xray_patch() == SUCCESS, "patch");
  check_all("patched");
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  check_all("unpatched again");
  if (!stress_is_mode(mode))
    CHECK(handler_calls > 200 * 10, "handler ran %ld times", handler_calls);
  stress_stop_mode(mode);
  printf("fp_args %s: ok (avx %s)\n", mode, have_avx ? "yes" : "no");
  return 0;
}
