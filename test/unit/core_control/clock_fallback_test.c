/* xr_now() without an invariant TSC: the clock_gettime fallback.
 *
 * This program defines its own clock_gettime, which the runtime (linked
 * statically) calls instead of libc's. It counts its calls and wipes every
 * vector register (vzeroall, or pxor without AVX) before asking the kernel,
 * as a libc or vDSO free to use vector registers may. xr_now() is inlined
 * into lean handlers whose callers saved no vector register, so its
 * fallback must keep all of them intact. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/clock/clock.h"
#include "core/dispatch/handlers.h"
#include "core/clock/clock_lean.h"

static int have_avx;
static unsigned long gettime_calls;

int clock_gettime(clockid_t id, struct timespec *ts) {
  __atomic_add_fetch(&gettime_calls, 1, __ATOMIC_RELAXED);
  if (have_avx)
    __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
                     "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                     "xmm12", "xmm13", "xmm14", "xmm15");
  else
    __asm__ volatile(
        "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
        "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
        "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
        "pxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\t"
        "pxor %%xmm11, %%xmm11\n\tpxor %%xmm12, %%xmm12\n\t"
        "pxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\t"
        "pxor %%xmm15, %%xmm15" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
        "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15");
  return (int)syscall(SYS_clock_gettime, id, ts);
}

static uint64_t kernel_monotonic_ns(void) {
  struct timespec ts;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int force_fallback(void **state) {
  (void)state;
  have_avx = __builtin_cpu_supports("avx");
  xr_vector_state_init(); /* as the runtime does before any handler runs */
  xr_clock_init();
  xr_clock.using_ticks = false; /* as without an invariant tick counter */
  xr_clock.frequency_hz = 1000000000u;
  return 0;
}

static void fallback_reads_monotonic_ns(void **state) {
  (void)state;
  unsigned long calls = gettime_calls;
  uint64_t before = kernel_monotonic_ns();
  uint64_t prev = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t t = xr_now();
    assert_true(t >= before);
    assert_true(t >= prev);
    prev = t;
  }
  uint64_t after = kernel_monotonic_ns();
  assert_true(prev <= after);
  assert_int_equal(gettime_calls - calls, 1000); /* every read took the fallback */
  assert_int_equal(xr_ticks_to_ns(12345), 12345);
}

/* Loads xmm/ymm 0-15 from `in`, calls xr_clock_fallback_now() the way a
 * lean handler does (no vector register saved around it), stores the
 * registers to `out`. The stack is realigned below the red zone. */
static uint64_t call_with_vectors(const uint8_t *in, uint8_t *out) {
  register const uint8_t *src __asm__("rbx") = in;
  register uint8_t *dst __asm__("r13") = out;
  uint64_t now;

  if (have_avx)
    __asm__ volatile(
        "movq %%rsp, %%r12\n\tsubq $128, %%rsp\n\tandq $-32, %%rsp\n\t"
        "vmovdqu 0(%1), %%ymm0\n\tvmovdqu 32(%1), %%ymm1\n\t"
        "vmovdqu 64(%1), %%ymm2\n\tvmovdqu 96(%1), %%ymm3\n\t"
        "vmovdqu 128(%1), %%ymm4\n\tvmovdqu 160(%1), %%ymm5\n\t"
        "vmovdqu 192(%1), %%ymm6\n\tvmovdqu 224(%1), %%ymm7\n\t"
        "vmovdqu 256(%1), %%ymm8\n\tvmovdqu 288(%1), %%ymm9\n\t"
        "vmovdqu 320(%1), %%ymm10\n\tvmovdqu 352(%1), %%ymm11\n\t"
        "vmovdqu 384(%1), %%ymm12\n\tvmovdqu 416(%1), %%ymm13\n\t"
        "vmovdqu 448(%1), %%ymm14\n\tvmovdqu 480(%1), %%ymm15\n\t"
        "call xr_clock_fallback_now\n\t"
        "vmovdqu %%ymm0, 0(%2)\n\tvmovdqu %%ymm1, 32(%2)\n\t"
        "vmovdqu %%ymm2, 64(%2)\n\tvmovdqu %%ymm3, 96(%2)\n\t"
        "vmovdqu %%ymm4, 128(%2)\n\tvmovdqu %%ymm5, 160(%2)\n\t"
        "vmovdqu %%ymm6, 192(%2)\n\tvmovdqu %%ymm7, 224(%2)\n\t"
        "vmovdqu %%ymm8, 256(%2)\n\tvmovdqu %%ymm9, 288(%2)\n\t"
        "vmovdqu %%ymm10, 320(%2)\n\tvmovdqu %%ymm11, 352(%2)\n\t"
        "vmovdqu %%ymm12, 384(%2)\n\tvmovdqu %%ymm13, 416(%2)\n\t"
        "vmovdqu %%ymm14, 448(%2)\n\tvmovdqu %%ymm15, 480(%2)\n\t"
        "vzeroupper\n\tmovq %%r12, %%rsp"
        : "=a"(now)
        : "r"(src), "r"(dst)
        : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
          "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
          "xmm14", "xmm15");
  else
    __asm__ volatile(
        "movq %%rsp, %%r12\n\tsubq $128, %%rsp\n\tandq $-16, %%rsp\n\t"
        "movdqu 0(%1), %%xmm0\n\tmovdqu 32(%1), %%xmm1\n\t"
        "movdqu 64(%1), %%xmm2\n\tmovdqu 96(%1), %%xmm3\n\t"
        "movdqu 128(%1), %%xmm4\n\tmovdqu 160(%1), %%xmm5\n\t"
        "movdqu 192(%1), %%xmm6\n\tmovdqu 224(%1), %%xmm7\n\t"
        "movdqu 256(%1), %%xmm8\n\tmovdqu 288(%1), %%xmm9\n\t"
        "movdqu 320(%1), %%xmm10\n\tmovdqu 352(%1), %%xmm11\n\t"
        "movdqu 384(%1), %%xmm12\n\tmovdqu 416(%1), %%xmm13\n\t"
        "movdqu 448(%1), %%xmm14\n\tmovdqu 480(%1), %%xmm15\n\t"
        "call xr_clock_fallback_now\n\t"
        "movdqu %%xmm0, 0(%2)\n\tmovdqu %%xmm1, 32(%2)\n\t"
        "movdqu %%xmm2, 64(%2)\n\tmovdqu %%xmm3, 96(%2)\n\t"
        "movdqu %%xmm4, 128(%2)\n\tmovdqu %%xmm5, 160(%2)\n\t"
        "movdqu %%xmm6, 192(%2)\n\tmovdqu %%xmm7, 224(%2)\n\t"
        "movdqu %%xmm8, 256(%2)\n\tmovdqu %%xmm9, 288(%2)\n\t"
        "movdqu %%xmm10, 320(%2)\n\tmovdqu %%xmm11, 352(%2)\n\t"
        "movdqu %%xmm12, 384(%2)\n\tmovdqu %%xmm13, 416(%2)\n\t"
        "movdqu %%xmm14, 448(%2)\n\tmovdqu %%xmm15, 480(%2)\n\t"
        "movq %%r12, %%rsp"
        : "=a"(now)
        : "r"(src), "r"(dst)
        : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
          "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
          "xmm14", "xmm15");
  return now;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1 /* its runtime, called from every instrumented function
                        (clock_lean.c too), uses vector registers */
#endif
#endif

static void fallback_keeps_vector_registers(void **state) {
  (void)state;
#ifdef UNDER_TSAN
  skip();
#endif
  uint8_t in[16 * 32], out[16 * 32];
  for (unsigned i = 0; i < sizeof in; i++)
    in[i] = (uint8_t)(i * 7 + 1); /* no zero byte: a wiped register shows */
  memset(out, 0, sizeof out);
  unsigned long calls = gettime_calls;
  uint64_t before = kernel_monotonic_ns();
  uint64_t now = call_with_vectors(in, out);
  assert_int_equal(gettime_calls - calls, 1); /* the wiping clock ran */
  assert_true(now >= before && now <= kernel_monotonic_ns());
  if (have_avx) {
    assert_memory_equal(out, in, sizeof in); /* all 256 bits of ymm0-15 */
  } else {
    for (int r = 0; r < 16; r++) /* xmm0-15, the low 16 of each 32 bytes */
      assert_memory_equal(out + 32 * r, in + 32 * r, 16);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fallback_reads_monotonic_ns),
      cmocka_unit_test(fallback_keeps_vector_registers),
  };
  return cmocka_run_group_tests(tests, force_fallback, NULL);
}
