/* x87 results through the full (user-handler) paths: `long double` (st0)
 * and `_Complex long double` (st0, st1) results of traced functions, and
 * two long doubles held in st0/st1 across custom event sleds, compared bit
 * for bit with the unpatched run, together with the x87 control word and
 * exception flags, while the handler calls x87 libm (sinl, expl, powl),
 * raises x87 exception flags, pushes all eight x87 registers, calls SSE/AVX
 * libm (sin, exp) and clears every vector register. The ABI lets any callee
 * use the whole x87 stack; a value left in it while such a handler runs
 * comes back as -nan. Each full-path form is run: as installed (zmm with
 * AVX-512), ymm, xmm, and the pushfq copies of each. Prints one line per
 * check. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>

/* Runtime-internal: cleared before an install, they select the ymm, xmm
 * and pushfq copies of the full paths. */
extern uint8_t xr_vector_avx512, xr_vector_avx, xr_cpu_lahf_sahf;

#define NOXRAY __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((xray_always_instrument, noinline))

/* ---- the handler ---- */
static volatile long double ld_in = 0.3L, ld_three = 3.0L, ld_zero = 0.0L;
static volatile long double ld_sink;
static volatile double d_in = 0.7, d_sink;
static int have_avx;
static unsigned long events_by_type[4], custom_events;

NOXRAY static void x87_whole_stack(void) {
  __asm__ volatile(".rept 8\n\tfldpi\n\t.endr\n\t"
                   ".rept 8\n\tfstp %%st(0)\n\t.endr"
                   :
                   :
                   : "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
                     "st(7)");
}
NOXRAY static void clear_vectors(void) {
  if (have_avx)
    __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                     "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                     "xmm13", "xmm14", "xmm15");
  else
    __asm__ volatile(".irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
                     "pxor %%xmm\\r, %%xmm\\r\n\t.endr" ::: "xmm0", "xmm1", "xmm2",
                     "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                     "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
NOXRAY static void sse_work(void) {
  d_sink = sin(d_in) + exp(d_in);
  clear_vectors();
}
/* x87 work that raises the precision and zero-divide flags, which the
 * traced functions do not raise themselves. */
NOXRAY static void busy(void) {
  ld_sink = sinl(ld_in) + expl(ld_in) + powl(ld_in, 1.5L) + 1.0L / ld_three +
            1.0L / ld_zero;
  x87_whole_stack();
  sse_work();
}
/* At entry no x87 value is live and no path keeps the x87 exception flags
 * of an empty stack (docs/core.md), so the handler keeps to SSE/AVX work
 * there: the flags then seen after a call are those its exit promises. */
NOXRAY static void handler(int32_t id, XRayEntryType type) {
  (void)id;
  if ((unsigned)type < 4)
    events_by_type[type]++;
  if (type == ENTRY)
    sse_work();
  else
    busy();
}
NOXRAY static void custom_handler(void *ptr, size_t size) {
  (void)ptr;
  if (size == 3)
    custom_events++;
  busy();
}

/* ---- instrumented functions (-O2); results exact, so they raise no x87
 * exception of their own ---- */
TRACED long double ld_fn(long double x) { return x * 3.0L + 0.25L; }
TRACED _Complex long double cld_fn(long double x) {
  _Complex long double r;
  __real__ r = x * 2.0L;
  __imag__ r = x - 1.0L;
  return r;
}
TRACED long double ld_of_int(int n) { return (long double)n * 0.5L; }
/* A tail call: the tail-exit sled runs with an empty x87 stack. */
TRACED long double ld_tail(int n) { return ld_of_int(n + 1); }
TRACED double d_fn(double x) { return x * 3.0 + 0.25; }
/* Two long doubles live in st0/st1 across the event sled. */
TRACED long double event_body(long double a, long double b) {
  long double x = a * 3.0L, y = b * 5.0L;
  __asm__ volatile("" : "+t"(x), "+u"(y));
  __xray_customevent("abc", 3);
  __asm__ volatile("" : "+t"(x), "+u"(y));
  return x * 2.0L + y;
}

/* ---- the driver ---- */
struct x87_words {
  uint16_t cw, flags; /* control word; status word's exception flags */
};
NOXRAY static struct x87_words x87_words(void) {
  uint16_t cw, sw;
  __asm__ volatile("fnstcw %0\n\tfnstsw %1" : "=m"(cw), "=m"(sw));
  return (struct x87_words){cw, (uint16_t)(sw & 0x3f)};
}
NOXRAY static void x87_clear_flags(void) { __asm__ volatile("fnclex"); }

/* A long double's 10 bytes (the rest of its 16 is padding). */
struct ld_bits {
  unsigned char b[10];
};
NOXRAY static struct ld_bits bits(long double x) {
  struct ld_bits r;
  memcpy(r.b, &x, 10);
  return r;
}
struct results {
  struct ld_bits ld, cre, cim, tail, event;
  struct x87_words ld_words, cld_words, event_words;
  double d;
};
static volatile long double in_a = 1.5L, in_b = -2.25L;
static volatile int in_n = 7;
static volatile double in_d = 1.5;

NOXRAY static void run(struct results *r) {
  x87_clear_flags();
  r->ld = bits(ld_fn(in_a));
  r->ld_words = x87_words();
  x87_clear_flags();
  _Complex long double c = cld_fn(in_b);
  r->cld_words = x87_words();
  r->cre = bits(__real__ c);
  r->cim = bits(__imag__ c);
  r->tail = bits(ld_tail(in_n));
  r->d = d_fn(in_d);
  x87_clear_flags();
  r->event = bits(event_body(in_a, in_b));
  r->event_words = x87_words();
}

static int failures;
NOXRAY static void expect_same(const char *label, const char *what, const void *got,
                               const void *want, size_t n) {
  int same = memcmp(got, want, n) == 0;
  printf("%s: %s: %s\n", label, what, same ? "same" : "DIFFERS");
  failures += !same;
}
NOXRAY static void compare(const char *label, const struct results *got,
                           const struct results *want, int events) {
  expect_same(label, "long double", &got->ld, &want->ld, 10);
  expect_same(label, "long double, x87 control word and flags", &got->ld_words,
              &want->ld_words, sizeof got->ld_words);
  expect_same(label, "complex long double, real", &got->cre, &want->cre, 10);
  expect_same(label, "complex long double, imaginary", &got->cim, &want->cim, 10);
  expect_same(label, "complex long double, x87 control word and flags",
              &got->cld_words, &want->cld_words, sizeof got->cld_words);
  expect_same(label, "tail call, long double", &got->tail, &want->tail, 10);
  expect_same(label, "double", &got->d, &want->d, sizeof got->d);
  if (events) {
    expect_same(label, "st0/st1 across a custom event", &got->event, &want->event, 10);
    expect_same(label, "custom event, x87 control word and flags", &got->event_words,
                &want->event_words, sizeof got->event_words);
  }
}
NOXRAY static void expect_count(const char *label, const char *what, unsigned long got,
                                unsigned long want) {
  printf("%s: %s: %lu\n", label, what, got);
  failures += got != want;
}

/* One full-path form: install the handlers with the given knobs, run, compare. */
NOXRAY static void run_form(const char *label, int avx512, int avx, int lahf,
                            const struct results *want) {
  uint8_t was_avx512 = xr_vector_avx512, was_avx = xr_vector_avx, was_lahf = xr_cpu_lahf_sahf;
  xr_vector_avx512 &= (uint8_t)avx512;
  xr_vector_avx &= (uint8_t)avx;
  xr_cpu_lahf_sahf &= (uint8_t)lahf;
  if (!__xray_set_handler(handler) || !__xray_set_customevent_handler(custom_handler))
    failures++;
  xr_vector_avx512 = was_avx512;
  xr_vector_avx = was_avx;
  xr_cpu_lahf_sahf = was_lahf;
  memset(events_by_type, 0, sizeof events_by_type);
  custom_events = 0;
  struct results got;
  run(&got);
  /* The event paths have no pushfq copy (they always use pushfq). */
  compare(label, &got, want, lahf);
  /* entry+exit: ld_fn, cld_fn, ld_of_int, d_fn, event_body; ld_tail: entry,
   * tail. */
  expect_count(label, "entry events", events_by_type[ENTRY], 6);
  expect_count(label, "exit events", events_by_type[EXIT], 5);
  expect_count(label, "tail events", events_by_type[TAIL], 1);
  expect_count(label, "custom events", custom_events, 1);
}

NOXRAY int main(void) {
  __builtin_cpu_init();
  have_avx = __builtin_cpu_supports("avx");
  struct results want;
  run(&want); /* unpatched */
  if (__xray_patch() != SUCCESS)
    return 1;
  run_form("as installed", 1, 1, 1, &want);
  run_form("ymm", 0, 1, 1, &want);
  run_form("xmm", 0, 0, 1, &want);
  run_form("pushfq", 1, 1, 0, &want);
  run_form("ymm pushfq", 0, 1, 0, &want);
  run_form("xmm pushfq", 0, 0, 0, &want);
  return failures != 0;
}
