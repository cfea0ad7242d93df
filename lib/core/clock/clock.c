/* Timestamps and CPU ids (see clock.h).
 *
 * The frequency is decided once, best source first:
 *   1. what the CPU states exactly (the port's xr_arch_clock_probe);
 *   2. sysfs tsc_freq_khz (vendor kernels);
 *   3. the CPU's nominal base frequency, kept only if a short calibration
 *      agrees within 1 % (it is a nominal value, not a measurement);
 *   4. calibration against CLOCK_MONOTONIC_RAW (about 1 ms).
 * Without an invariant tick counter, timestamps are CLOCK_MONOTONIC ns at
 * 1e9 Hz.
 * Nothing is ever printed at verbosity 0. */
#define _GNU_SOURCE /* sched_getcpu */
#include "core/clock/clock.h"
#include "core/base/report.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

struct xr_clock_info xr_clock = {
    .frequency_hz = 1000000000u,
    .using_ticks = false,
    .source = "clock_gettime"};

enum { CPU_NONE = 0 };
int xr_cpu_method = CPU_NONE;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

#ifdef XR_TEST_POINTS
void (*xr_clock_test_port_cpu_read)(void); /* clock.h */
#endif


#define NS_PER_SEC 1000000000ull

static uint64_t raw_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* a * b / c exactly, with a 128-bit product and the port's 128-by-64-bit
 * division (no libgcc, no libm); saturates at UINT64_MAX when the quotient
 * does not fit. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c) {
  if (c == 0)
    return 0;
  unsigned __int128 p = (unsigned __int128)a * b;
  uint64_t hi = (uint64_t)(p >> 64);
  if (hi >= c)
    return UINT64_MAX; /* quotient does not fit in 64 bits */
  return xr_arch_udiv128(hi, (uint64_t)p, c);
}

uint64_t xr_ticks_to_ns(uint64_t ticks) {
  return mul_div(ticks, NS_PER_SEC, xr_clock.frequency_hz);
}

uint64_t xr_us_to_ticks(uint64_t us) {
  return mul_div(us, xr_clock.frequency_hz, 1000000u);
}

/* One (ticks, raw ns) pair whose tick bracket around clock_gettime is the
 * narrowest of a few tries, so a preemption in between does not skew it. */
static int sample(uint64_t *ticks, uint64_t *ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    uint64_t a = xr_read_ticks();
    uint64_t t = raw_ns();
    uint64_t b = xr_read_ticks();
    if (t == 0)
      return -1;
    if (b - a < best) {
      best = b - a;
      *ticks = a + (b - a) / 2;
      *ns = t;
    }
  }
  return 0;
}

uint64_t xr_clock_calibrate(uint64_t window_ns) {
  uint64_t ticks0 = 0, ns0 = 0, ticks1 = 0, ns1 = 0;
  if (window_ns == 0 || sample(&ticks0, &ns0) != 0)
    return 0;
  /* Sleep rather than spin: only the two end points matter. */
  struct timespec req = {(time_t)(window_ns / NS_PER_SEC),
                         (long)(window_ns % NS_PER_SEC)};
  while (nanosleep(&req, &req) != 0 && errno == EINTR) {
  }
  if (sample(&ticks1, &ns1) != 0 || ns1 <= ns0 || ticks1 <= ticks0)
    return 0;
  return mul_div(ticks1 - ticks0, NS_PER_SEC, ns1 - ns0);
}

static uint64_t read_sysfs_khz(void) {
  int fd = open("/sys/devices/system/cpu/cpu0/tsc_freq_khz",
                O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  uint64_t v = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
    if (v > UINT64_MAX / 10 - 10)
      return 0;
    v = v * 10 + (uint64_t)(buf[i] - '0');
  }
  return v;
}

static bool agrees_within_1pct(uint64_t a, uint64_t b) {
  uint64_t d = a > b ? a - b : b - a;
  return d <= b / 100;
}

/* Start-up cost of the last resort: about this long, once per process (a
 * sleep, not a spin). The error is ~2 bracket widths (< 100 ns) over it. */
enum { CALIBRATION_WINDOW_NS = 1000000 };

static void decide_frequency(const struct xr_arch_clock_caps *caps) {
  if (caps->exact_hz) {
    xr_clock.frequency_hz = caps->exact_hz;
    xr_clock.source = caps->exact_source;
    return;
  }
  uint64_t khz = read_sysfs_khz();
  if (khz) {
    xr_clock.frequency_hz = khz * 1000u;
    xr_clock.source = "sysfs";
    return;
  }
  uint64_t measured = xr_clock_calibrate(CALIBRATION_WINDOW_NS);
  uint64_t base = caps->nominal_hz;
  if (base && measured && agrees_within_1pct(base, measured)) {
    xr_clock.frequency_hz = base;
    xr_clock.source = caps->exact_source;
    return;
  }
  if (measured) {
    xr_clock.frequency_hz = measured;
    xr_clock.source = "calibrated";
    return;
  }
  xr_clock.using_ticks = false; /* cannot measure: keep clock_gettime */
  xr_clock.frequency_hz = NS_PER_SEC;
  xr_clock.source = "clock_gettime";
}

/* The method's name in debug output; the port names its own reads. */
static const char *method_name(const struct xr_arch_clock_caps *caps) {
  const char *port = NULL;
  if (xr_cpu_method == XR_CPU_ID_INSN)
    port = caps->cpu_insn_name;
  else if (xr_cpu_method == XR_CPU_ID_WITH_TICKS)
    port = caps->ticks_cpu_name;
  if (port)
    return port;
  return xr_cpu_method == XR_CPU_ID_RSEQ    ? "rseq"
         : xr_cpu_method == XR_CPU_ID_SCHED ? "sched_getcpu"
                                            : "the port's read";
}

static void clock_init_once(void) {
  struct xr_arch_clock_caps caps;
  xr_arch_clock_probe(&caps);
  if (xr_rseq_available())
    xr_cpu_method = XR_CPU_ID_RSEQ;
  else if (caps.cpu_insn)
    xr_cpu_method = XR_CPU_ID_INSN;
  else if (caps.ticks_cpu)
    xr_cpu_method = XR_CPU_ID_WITH_TICKS;
  else
    xr_cpu_method = XR_CPU_ID_SCHED;

  /* An invariant counter runs at a constant rate and keeps running in deep
   * C-states: both header bits follow from it. */
  xr_clock.constant_tsc = caps.invariant_ticks;
  xr_clock.nonstop_tsc = caps.invariant_ticks;
  if (caps.invariant_ticks) {
    xr_clock.using_ticks = true;
    decide_frequency(&caps);
  }
  /* xr_now(), read here (its fallback lives in clock_lean.c) */
  xr_clock.start_ticks = xr_clock.using_ticks ? xr_read_ticks() : monotonic_ns();
  /* Under an emulator the port checked its CPUID against the host's. */
  bool emulated = caps.emulator != NULL;
  xr_report(XR_DEBUG, "clock: %s, %llu Hz, cpu id via %s%s%s%s",
            xr_clock.source, (unsigned long long)xr_clock.frequency_hz,
            method_name(&caps), emulated ? " (under " : "",
            emulated ? caps.emulator : "", emulated ? ")" : "");
}

void xr_clock_init(void) { pthread_once(&clock_once, clock_init_once); }

static uint32_t sched_cpu(void) {
  int c = sched_getcpu();
  return c < 0 ? 0u : (uint32_t)c;
}

/* Ordinary code, run by clock_lean.c behind a vector save (see clock.h). */
void xr_clock_behind_save(void *request) {
  struct xr_clock_request *r = request;
  switch (r->work) {
  case XR_CLOCK_MONOTONIC_NS: r->out = monotonic_ns(); break;
  case XR_CLOCK_SCHED_CPU: r->out = sched_cpu(); break;
  case XR_CLOCK_INIT: xr_clock_init(); break;
  }
}
