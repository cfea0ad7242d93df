/* AVX-512 state through the full (user-handler) paths, compiled with
 * -mavx512f -mavx512bw:
 *  - __m512 / __m512i arguments (zmm0-7) and results (zmm0) of entry, exit,
 *    tail-exit and log-args sleds, compared bit for bit with the unpatched
 *    run, while the handler calls libm (sin, exp: glibc picks AVX/FMA
 *    variants that end in vzeroupper), does 512-bit arithmetic and then sets
 *    every zmm and mask register to all ones; also with the upper halves of
 *    all arguments zero but one (or none), the paths' ymm form;
 *  - custom and typed event sleds in a function that holds live values in
 *    all of zmm0-31 and k0-7 across them (register variables pin them).
 * Prints one line per case; exits 77 when the CPU or OS lacks AVX-512. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>

/* Runtime-internal: 0 forces the event path's kmovw form (CPUs without
 * AVX512BW, whose mask registers have 16 bits). */
extern uint8_t xr_cpu_avx512bw;

#define NOXRAY __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((xray_always_instrument, noinline))
#define INLINE static inline __attribute__((always_inline))

/* ---- the handler: libm, vector work, then every register clobbered ---- */
static volatile double libm_in = 0.7;
static volatile double libm_sink;
static __m512d vec_sink;
static unsigned long events_by_type[4], custom_events, typed_events;
static uint64_t last_arg;

NOXRAY static void clobber_avx512(void) {
#define Z8(a, b, c, d, e, f, g, h)                                             \
  "zmm" #a, "zmm" #b, "zmm" #c, "zmm" #d, "zmm" #e, "zmm" #f, "zmm" #g, "zmm" #h
  __asm__ volatile(".irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                   "21,22,23,24,25,26,27,28,29,30,31\n\t"
                   "vpternlogd $0xff, %%zmm\\r, %%zmm\\r, %%zmm\\r\n\t"
                   ".endr\n\t"
                   ".irp k, 0,1,2,3,4,5,6,7\n\t"
                   "kxnorq %%k\\k, %%k\\k, %%k\\k\n\t"
                   ".endr"
                   :
                   :
                   : Z8(0, 1, 2, 3, 4, 5, 6, 7), Z8(8, 9, 10, 11, 12, 13, 14, 15),
                     Z8(16, 17, 18, 19, 20, 21, 22, 23),
                     Z8(24, 25, 26, 27, 28, 29, 30, 31), "k0", "k1", "k2", "k3", "k4",
                     "k5", "k6", "k7");
#undef Z8
}

NOXRAY static void busy(void) {
  libm_sink = sin(libm_in) + exp(libm_in);
  __m512d v = _mm512_set1_pd(libm_sink);
  vec_sink = _mm512_fmadd_pd(v, v, vec_sink);
  clobber_avx512();
}
NOXRAY static void handler(int32_t id, XRayEntryType type) {
  (void)id;
  if ((unsigned)type < 4)
    events_by_type[type]++;
  busy();
}
NOXRAY static void handler_arg1(int32_t id, XRayEntryType type, uint64_t arg) {
  last_arg = arg;
  handler(id, type);
}
NOXRAY static void custom_handler(void *ptr, size_t size) {
  (void)ptr;
  if (size == 3)
    custom_events++;
  busy();
}
NOXRAY static void typed_handler(uint16_t type, const void *ptr, size_t size) {
  (void)ptr;
  if (type == 7 && size == 5)
    typed_events++;
  busy();
}

/* ---- instrumented functions with vector arguments and results ---- */
/* Every bit of every argument reaches the result. */
INLINE __m512i mix(__m512i a, __m512i b, __m512i c, __m512i d, __m512i e, __m512i f,
                   __m512i g, __m512i h) {
  __m512i x = _mm512_xor_si512(a, _mm512_rol_epi64(b, 7));
  x = _mm512_xor_si512(x, _mm512_rol_epi64(c, 13));
  x = _mm512_xor_si512(x, _mm512_rol_epi64(d, 19));
  x = _mm512_add_epi64(x, _mm512_rol_epi64(e, 29));
  x = _mm512_xor_si512(x, _mm512_rol_epi64(f, 37));
  x = _mm512_add_epi64(x, _mm512_rol_epi64(g, 43));
  return _mm512_xor_si512(x, _mm512_rol_epi64(h, 53));
}
TRACED __m512i mix_epi(__m512i a, __m512i b, __m512i c, __m512i d, __m512i e,
                       __m512i f, __m512i g, __m512i h) {
  return mix(a, b, c, d, e, f, g, h);
}
TRACED __m512 mix_ps(__m512 a, __m512 b, __m512 c, __m512 d, __m512 e, __m512 f,
                     __m512 g, __m512 h) {
  __m512 x = _mm512_fmadd_ps(a, b, c);
  x = _mm512_fmadd_ps(x, d, e);
  x = _mm512_fmadd_ps(x, f, g);
  return _mm512_add_ps(x, h);
}
/* A tail call (-O2): the tail-exit sled with eight live zmm arguments. */
TRACED __m512i tail_epi(__m512i a, __m512i b, __m512i c, __m512i d, __m512i e,
                        __m512i f, __m512i g, __m512i h) {
  return mix_epi(h, g, f, e, d, c, b, a);
}
TRACED __attribute__((xray_log_args(1))) __m512i
logged_epi(uint64_t n, __m512i a, __m512i b, __m512i c, __m512i d, __m512i e,
           __m512i f, __m512i g, __m512i h) {
  return _mm512_add_epi64(mix(a, b, c, d, e, f, g, h), _mm512_set1_epi64((long long)n));
}

/* ---- an event sled with all of zmm0-31 and k0-7 live across it ---- */
#define PIN(v, c) __asm__ volatile("" : "+" c(v))
#define ZREG(n) register __m512i z##n __asm__("zmm" #n) = _mm512_loadu_si512(in + 8 * n)
#define ZPIN(n) PIN(z##n, "v")
#define ZOUT(n) _mm512_storeu_si512(out + 8 * n, z##n)
#define KREG(n) register __mmask64 k##n __asm__("k" #n) = _cvtu64_mask64(in[256 + n])
#define KPIN(n) PIN(k##n, "k")
#define KOUT(n) out[256 + n] = _cvtmask64_u64(k##n)
#define ALL32(m)                                                                 \
  m(0); m(1); m(2); m(3); m(4); m(5); m(6); m(7); m(8); m(9); m(10); m(11); m(12); \
  m(13); m(14); m(15); m(16); m(17); m(18); m(19); m(20); m(21); m(22); m(23);     \
  m(24); m(25); m(26); m(27); m(28); m(29); m(30); m(31)
#define ALL8(m) m(0); m(1); m(2); m(3); m(4); m(5); m(6); m(7)

/* in/out: 32 zmm (8 qwords each), then 8 mask registers. */
#define STATE_QWORDS (32 * 8 + 8)
TRACED void event_body(const uint64_t *in, uint64_t *out) {
  ALL32(ZREG);
  ALL8(KREG);
  ALL32(ZPIN);
  ALL8(KPIN);
  __xray_customevent("abc", 3);
  __xray_typedevent(7, "typed", 5);
  ALL32(ZPIN);
  ALL8(KPIN);
  ALL32(ZOUT);
  ALL8(KOUT);
}

/* ---- the driver ---- */
static int failures;

NOXRAY static uint64_t pattern(unsigned i) {
  uint64_t x = 0x9E3779B97F4A7C15ull * (i + 1);
  return x ^ (x >> 29) ^ 0x0123456789ABCDEFull; /* no lane or half all zero */
}
NOXRAY static __m512i vec_i(unsigned k) {
  uint64_t q[8];
  for (unsigned i = 0; i < 8; i++)
    q[i] = pattern(8 * k + i);
  return _mm512_loadu_si512(q);
}
NOXRAY static __m512 vec_f(unsigned k) {
  float f[16];
  for (unsigned i = 0; i < 16; i++)
    f[i] = (float)(k + 1) * 1.25f + (float)i * 0.0625f - 3.0f;
  return _mm512_loadu_ps(f);
}

struct results {
  __m512i mix, tail, logged;
  __m512 ps;
};
NOXRAY static void run_vectors(struct results *r) {
  __m512i a = vec_i(0), b = vec_i(1), c = vec_i(2), d = vec_i(3), e = vec_i(4),
          f = vec_i(5), g = vec_i(6), h = vec_i(7);
  r->mix = mix_epi(a, b, c, d, e, f, g, h);
  r->tail = tail_epi(a, b, c, d, e, f, g, h);
  r->logged = logged_epi(0xABCDEF0123456789ull, a, b, c, d, e, f, g, h);
  r->ps = mix_ps(vec_f(0), vec_f(1), vec_f(2), vec_f(3), vec_f(4), vec_f(5), vec_f(6),
                 vec_f(7));
}

/* The full paths store zmm0-7 whole only when one has a bit above 255 set,
 * else their ymm halves: arguments whose upper halves are all zero, then
 * with the upper half of one register set (each of zmm0-7 in turn), through
 * entry + exit, tail exit and log-args entry. Row 0: none set; row j + 1:
 * zmm j. */
#define MIXED_ROWS 9
NOXRAY static __m512i narrow(__m512i v) {
  return _mm512_inserti64x4(v, _mm256_setzero_si256(), 1);
}
NOXRAY static void run_mixed(__m512i out[MIXED_ROWS][3]) {
  for (int j = -1; j < 8; j++) {
    __m512i v[8];
    for (int k = 0; k < 8; k++)
      v[k] = k == j ? vec_i((unsigned)k) : narrow(vec_i((unsigned)k));
    out[j + 1][0] = mix_epi(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    out[j + 1][1] = tail_epi(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    out[j + 1][2] =
        logged_epi(0x5A5A5A5A5A5A5A5Aull, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
  }
}

NOXRAY static void expect_same(const char *what, const void *got, const void *want,
                               size_t n) {
  int same = memcmp(got, want, n) == 0;
  printf("%s: %s\n", what, same ? "same" : "DIFFERS");
  failures += !same;
}
NOXRAY static void expect_count(const char *what, unsigned long got, unsigned long want) {
  printf("%s: %lu\n", what, got);
  failures += got != want;
}

NOXRAY static void compare(const char *label, const struct results *got,
                           const struct results *want) {
  char what[96];
  snprintf(what, sizeof what, "%s: __m512i args and result", label);
  expect_same(what, &got->mix, &want->mix, 64);
  snprintf(what, sizeof what, "%s: __m512 args and result", label);
  expect_same(what, &got->ps, &want->ps, 64);
  snprintf(what, sizeof what, "%s: tail call, __m512i", label);
  expect_same(what, &got->tail, &want->tail, 64);
  snprintf(what, sizeof what, "%s: log-args, __m512i", label);
  expect_same(what, &got->logged, &want->logged, 64);
}

NOXRAY int main(void) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
    fprintf(stderr, "no AVX-512 (F and BW) on this CPU/OS\n");
    return 77;
  }
  struct results want, got;
  run_vectors(&want); /* unpatched */
  static __m512i want_mixed[MIXED_ROWS][3], got_mixed[MIXED_ROWS][3];
  run_mixed(want_mixed);

  if (__xray_patch() != SUCCESS || !__xray_set_handler(handler))
    return 1;
  run_vectors(&got);
  compare("arg0 handler", &got, &want);
  /* mix_epi and mix_ps: entry+exit; tail_epi: entry, tail; then mix_epi
   * entry+exit; logged_epi (no arg1 handler): LOG_ARGS_ENTRY + exit. */
  expect_count("entry events", events_by_type[ENTRY], 4);
  expect_count("exit events", events_by_type[EXIT], 4);
  expect_count("tail events", events_by_type[TAIL], 1);
  expect_count("log-args events", events_by_type[LOG_ARGS_ENTRY], 1);

  run_mixed(got_mixed);
  for (int j = 0; j < MIXED_ROWS; j++) {
    char what[96];
    if (j == 0)
      snprintf(what, sizeof what, "no upper half set: args and results");
    else
      snprintf(what, sizeof what, "upper half of zmm%d only: args and results", j - 1);
    expect_same(what, got_mixed[j], want_mixed[j], sizeof got_mixed[j]);
  }

  if (!__xray_set_handler_arg1(handler_arg1))
    return 1;
  memset(events_by_type, 0, sizeof events_by_type);
  run_vectors(&got);
  compare("arg1 handler", &got, &want);
  expect_count("log-args events", events_by_type[LOG_ARGS_ENTRY], 1);
  printf("arg: %#llx\n", (unsigned long long)last_arg);
  __xray_remove_handler_arg1();

  /* Events: the state after the sleds equals the state before. */
  static uint64_t in[STATE_QWORDS], out[STATE_QWORDS];
  for (unsigned i = 0; i < STATE_QWORDS; i++)
    in[i] = pattern(1000 + i);
  if (!__xray_set_customevent_handler(custom_handler) ||
      !__xray_set_typedevent_handler(typed_handler))
    return 1;
  event_body(in, out);
  expect_same("events: zmm0-31", out, in, 32 * 64);
  expect_same("events: k0-7", out + 256, in + 256, 64);
  expect_count("custom events", custom_events, 1);
  expect_count("typed events", typed_events, 1);
  /* The kmovw form: zmm0-31 whole, k0-7's low 16 bits. */
  uint8_t bw = xr_cpu_avx512bw;
  xr_cpu_avx512bw = 0;
  memset(out, 0, sizeof out);
  event_body(in, out);
  xr_cpu_avx512bw = bw;
  expect_same("events, kmovw form: zmm0-31", out, in, 32 * 64);
  int k16 = 1;
  for (int k = 0; k < 8; k++)
    k16 &= (uint16_t)out[256 + k] == (uint16_t)in[256 + k];
  printf("events, kmovw form: k0-7 low 16 bits: %s\n", k16 ? "same" : "DIFFERS");
  failures += !k16;
  expect_count("custom events", custom_events, 2);
  expect_count("typed events", typed_events, 2);
  return failures != 0;
}
