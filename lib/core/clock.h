/* Timestamps and CPU ids for every mode.
 *
 * With an invariant TSC the timestamp is `rdtsc` and the frequency comes from
 * CPUID 0x15/0x16, then sysfs tsc_freq_khz, then a short calibration against
 * CLOCK_MONOTONIC_RAW. Without an invariant TSC timestamps are
 * CLOCK_MONOTONIC nanoseconds and the frequency is 1e9. Never prints
 * anything at verbosity 0. */
#ifndef XR_CLOCK_H
#define XR_CLOCK_H

#include "common.h"
#include <time.h>

struct xr_clock_info {
  uint64_t frequency_hz; /* ticks per second of xr_now() */
  bool using_tsc;        /* false: clock_gettime fallback */
  bool constant_tsc;     /* header bit 0 */
  bool nonstop_tsc;      /* header bit 1 */
  const char *source;    /* "cpuid", "sysfs", "calibrated", "clock_gettime" */
};

/* Decided once by xr_clock_init() (idempotent, thread-safe); read-only after. */
XR_HIDDEN extern struct xr_clock_info xr_clock;
XR_HIDDEN void xr_clock_init(void);

/* Slow path of xr_now() when there is no usable TSC: CLOCK_MONOTONIC ns,
 * read through xr_call_preserving_vectors (lib/core/clock_hot.c), so it is
 * safe in lean handlers, whose callers saved no vector register, while
 * clock_gettime (vDSO, libc) may use any. Costs an XSAVE/XRSTOR pair on top
 * of clock_gettime: a few hundred cycles, only on machines without an
 * invariant TSC. */
XR_HIDDEN uint64_t xr_clock_fallback_now(void);

/* fn for xr_call_preserving_vectors: stores CLOCK_MONOTONIC ns into
 * *(uint64_t *)out. Ordinary code; call it only behind the vector save. */
XR_HIDDEN void xr_clock_monotonic_cb(void *out);

/* The raw time-stamp counter; the hot paths that test xr_clock.using_tsc
 * together with their other checks read it directly. */
static XR_ALWAYS_INLINE uint64_t xr_rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/* Hot path: one predictable branch and one rdtsc. Safe in every caller,
 * lean handlers (*_hot.c) included. */
static XR_ALWAYS_INLINE uint64_t xr_now(void) {
  if (XR_LIKELY(xr_clock.using_tsc))
    return xr_rdtsc();
  return xr_clock_fallback_now();
}

/* CPU the calling thread runs on, cheaply (rseq area / rdpid / rdtscp /
 * sched_getcpu, best first, chosen by xr_clock_init). Low 16 bits are
 * meaningful. */
XR_HIDDEN uint32_t xr_cpu_id(void);

/* How xr_cpu_id() reads the CPU (an enum xr_cpu_id_method, 0 before
 * xr_clock_init); chosen once by xr_clock_init. */
XR_HIDDEN extern int xr_cpu_method;

/* The register-only CPU readers, shared by xr_cpu_id (clock_hot.c, lean) and
 * xr_cpu_id_by (clock.c). Linux keeps node << 12 | cpu in TSC_AUX. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
static XR_ALWAYS_INLINE int32_t xr_cpu_by_rseq(void) {
  /* glibc >= 2.35: struct rseq at thread pointer + __rseq_offset; cpu_id at
   * offset 4, negative while unregistered. */
  char *tp;
  /* The thread pointer: %fs:0 holds its own address (x86-64 TLS ABI). Not
   * __builtin_thread_pointer(), which clang 13 cannot lower on x86-64. */
  __asm__("movq %%fs:0, %0" : "=r"(tp));
  return __atomic_load_n((const int32_t *)(tp + __rseq_offset + 4),
                         __ATOMIC_RELAXED);
}
static XR_ALWAYS_INLINE uint32_t xr_cpu_by_rdpid(void) {
  uint64_t aux;
  __asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" : "=a"(aux)); /* rdpid rax */
  return (uint32_t)aux & 0xfff;
}
/* The time-stamp counter and, in *cpu, the CPU id, from one rdtscp. */
static XR_ALWAYS_INLINE uint64_t xr_rdtscp(uint32_t *cpu) {
  uint32_t lo, hi, aux;
  __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
  *cpu = aux & 0xfff;
  return ((uint64_t)hi << 32) | lo;
}
static XR_ALWAYS_INLINE uint32_t xr_cpu_by_rdtscp(void) {
  uint32_t cpu;
  (void)xr_rdtscp(&cpu);
  return cpu;
}
/* Callbacks for xr_call_preserving_vectors: libc work behind a vector save. */
XR_HIDDEN void xr_cpu_sched_cb(void *out_u32);  /* sched_getcpu */
XR_HIDDEN void xr_clock_init_cb(void *unused);  /* xr_clock_init */

/* For tests: the CPU id read by one given method, if this CPU/libc/thread
 * supports it (returns 0 and sets *cpu), else -1. */
enum xr_cpu_id_method {
  XR_CPU_ID_RSEQ = 1,
  XR_CPU_ID_RDPID = 2,
  XR_CPU_ID_RDTSCP = 3,
  XR_CPU_ID_SCHED = 4
};
XR_HIDDEN int xr_cpu_id_by(enum xr_cpu_id_method method, uint32_t *cpu);

/* Converts ticks of xr_now() to nanoseconds / microseconds to ticks. */
XR_HIDDEN uint64_t xr_ticks_to_ns(uint64_t ticks);
XR_HIDDEN uint64_t xr_us_to_ticks(uint64_t us);

/* Measures the TSC frequency against CLOCK_MONOTONIC_RAW over about
 * `window_ns`; exposed for the unit test. Returns 0 on failure. */
XR_HIDDEN uint64_t xr_clock_calibrate(uint64_t window_ns);

#endif
