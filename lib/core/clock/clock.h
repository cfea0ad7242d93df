/* Timestamps and CPU ids for every mode.
 *
 * With an invariant tick counter (constant rate, also when idle) the
 * timestamp is the port's counter (lib/arch/arch.h) and the frequency comes
 * from what the CPU states, then sysfs tsc_freq_khz, then a short
 * calibration against CLOCK_MONOTONIC_RAW. Without one timestamps are
 * CLOCK_MONOTONIC nanoseconds and the frequency is 1e9. Never prints
 * anything at verbosity 0.
 *
 * Modes read the counter and the CPU id through this header and
 * clock_lean.h only (the always-inline wrappers: the port's instructions,
 * nothing added), never through arch/arch.h (house.layers checks).
 * This header is the cold half's (clock.c: the state, its choice, the
 * conversions); clock_lean.h is the lean half's (xr_now, xr_cpu_id), which
 * reads this one and is never read by it. */
#ifndef XR_CLOCK_H
#define XR_CLOCK_H

#include "core/base/common.h"
#include "core/base/test_points.h"
#include "arch/arch.h"
#include <time.h>

struct xr_clock_info {
  uint64_t frequency_hz; /* ticks per second of xr_now() */
  bool using_ticks;      /* false: clock_gettime fallback */
  bool constant_tsc;     /* file header bit 0 (the format's name) */
  bool nonstop_tsc;      /* file header bit 1 */
  const char *source;    /* "cpuid", "sysfs", "calibrated", "clock_gettime" */
  uint64_t start_ticks;  /* xr_now() once decided: before every timestamp */
};

/* Decided once by xr_clock_init() (idempotent, thread-safe); read-only after. */
XR_HIDDEN extern struct xr_clock_info xr_clock;
XR_HIDDEN void xr_clock_init(void);

/* The one seam between the clock's two translation units: clock_lean.c
 * (compiled lean, called from lean handlers) reaches the libc work of
 * clock.c only through xr_call_preserving_vectors(xr_clock_behind_save,
 * &request); clock.c never calls clock_lean.c. */
enum xr_clock_work {
  XR_CLOCK_MONOTONIC_NS, /* out = CLOCK_MONOTONIC in ns */
  XR_CLOCK_SCHED_CPU,    /* out = sched_getcpu() (0 when it fails) */
  XR_CLOCK_INIT          /* xr_clock_init() */
};
struct xr_clock_request {
  enum xr_clock_work work;
  uint64_t out;
};
XR_HIDDEN void xr_clock_behind_save(void *request);

/* The port's tick counter, one read. A timestamp only while
 * xr_clock.using_ticks (xr_now checks; a caller that checked once may read
 * this directly). */
static XR_ALWAYS_INLINE uint64_t xr_read_ticks(void) { return xr_arch_ticks(); }

#ifdef XR_TEST_POINTS
/* Unit tests only (clock.c defines it when compiled again with
 * XR_TEST_POINTS): run before each read of the CPU id by one of the port's
 * instructions, so a test can count them. These two wrappers are the only
 * way from core and the modes to those instructions. */
XR_HIDDEN extern void (*xr_clock_test_port_cpu_read)(void);
#endif

/* The tick counter and, in *cpu, the CPU id, from the port's one
 * instruction that reads both (XR_CPU_ID_WITH_TICKS). */
static XR_ALWAYS_INLINE uint64_t xr_read_ticks_and_cpu(uint32_t *cpu) {
  XR_TEST_POINT(xr_clock_test_port_cpu_read, ());
  return xr_arch_ticks_cpu(cpu);
}

/* How xr_cpu_id() reads the CPU (an enum xr_cpu_id_method, 0 before
 * xr_clock_init); chosen once by xr_clock_init. */
XR_HIDDEN extern int xr_cpu_method;

/* The register-only CPU readers, shared by xr_cpu_id (clock_lean.c, lean),
 * FDR's fast path and the tests' probe of each method. glibc >= 2.35
 * registers an rseq area per thread and exports where it is: struct rseq at
 * thread pointer + __rseq_offset, cpu_id at offset 4, negative while
 * unregistered. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
/* Whether this libc registers rseq areas (the symbols exist and the area
 * reaches cpu_id); a thread's cpu_id may still read negative. */
static inline bool xr_rseq_available(void) {
  return &__rseq_offset != NULL && &__rseq_size != NULL && __rseq_size >= 8;
}
/* Where the calling thread's rseq cpu_id is, from the thread pointer. */
static XR_ALWAYS_INLINE intptr_t xr_rseq_cpu_field(void) {
  return (intptr_t)__rseq_offset + 4;
}
/* The rseq cpu_id at thread pointer + `field` (xr_rseq_cpu_field, which a
 * caller may keep: one load fewer per read). */
static XR_ALWAYS_INLINE int32_t xr_cpu_at_rseq_field(intptr_t field) {
  return xr_arch_tls_load_s32(field);
}
static XR_ALWAYS_INLINE int32_t xr_cpu_by_rseq(void) {
  return xr_cpu_at_rseq_field(xr_rseq_cpu_field());
}
/* The CPU id alone, by the port's instruction for it (XR_CPU_ID_INSN). */
static XR_ALWAYS_INLINE uint32_t xr_cpu_by_insn(void) {
  XR_TEST_POINT(xr_clock_test_port_cpu_read, ());
  return xr_arch_cpu_insn();
}
/* The CPU id from the tick-and-CPU read, ticks unused
 * (XR_CPU_ID_WITH_TICKS). */
static XR_ALWAYS_INLINE uint32_t xr_cpu_by_ticks_read(void) {
  uint32_t cpu;
  (void)xr_read_ticks_and_cpu(&cpu);
  return cpu;
}

/* The ways to read the CPU id, best first. The two in the middle are the
 * port's, when the CPU has them (struct xr_arch_clock_caps). */
enum xr_cpu_id_method {
  XR_CPU_ID_RSEQ = 1,       /* a load from the rseq area */
  XR_CPU_ID_INSN = 2,       /* the port's CPU-id instruction */
  XR_CPU_ID_WITH_TICKS = 3, /* read together with the tick counter */
  XR_CPU_ID_SCHED = 4       /* sched_getcpu, behind a vector save */
};

/* Converts ticks of xr_now() to nanoseconds / microseconds to ticks. */
XR_HIDDEN uint64_t xr_ticks_to_ns(uint64_t ticks);
XR_HIDDEN uint64_t xr_us_to_ticks(uint64_t us);

/* Measures the tick counter's frequency against CLOCK_MONOTONIC_RAW over about
 * `window_ns`; exposed for the unit test. Returns 0 on failure. */
XR_HIDDEN uint64_t xr_clock_calibrate(uint64_t window_ns);

#endif
