/* clock.c: calibration accuracy, tick conversions, CPU ids, header bits. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "capture.h"
#include "core/clock/clock.h"
#include "core/output/output.h"
#include "core/base/report.h"
#include "../cpu_id_methods.h"
#include "core/clock/clock_lean.h"

static uint64_t raw_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One end point: the clock read between two TSC reads, the narrowest
 * bracket of 16 tries. A single unbracketed pair is skewed by whatever
 * runs between its two reads (a preemption, a VM's stolen time: 0.5 ms
 * there is 1% of the window below). */
static void end_point(uint64_t *tsc, uint64_t *ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 16; i++) {
    uint64_t a = __builtin_ia32_rdtsc(), t = raw_ns(), b = __builtin_ia32_rdtsc();
    if (b - a < best) {
      best = b - a;
      *tsc = a + (b - a) / 2;
      *ns = t;
    }
  }
}

/* An independent reference: TSC ticks over ~50 ms of CLOCK_MONOTONIC_RAW,
 * measured here with plain code (no shared helper with clock.c). */
static double reference_hz(void) {
  uint64_t t0 = 0, c0 = 0, t1 = 0, c1 = 0;
  end_point(&c0, &t0);
  struct timespec req = {0, 50000000};
  nanosleep(&req, NULL);
  end_point(&c1, &t1);
  return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
}

static void init_is_silent_at_verbosity_0(void **state) {
  (void)state;
  capture_begin();
  xr_clock_init();
  xr_clock_init();
  assert_string_equal(capture_end(), "");
  assert_true(xr_clock.frequency_hz > 0);
  assert_non_null(xr_clock.source);
}

static void calibration_within_one_percent(void **state) {
  (void)state;
  xr_clock_init();
  if (!xr_clock.using_ticks)
    skip(); /* no invariant tick counter: nothing to calibrate */
  uint64_t calibrated = xr_clock_calibrate(20000000);
  assert_true(calibrated > 0);
  /* Against what the CPUID/sysfs path reported, else a fresh measurement. */
  double ref = strcmp(xr_clock.source, "calibrated") == 0
                   ? reference_hz()
                   : (double)xr_clock.frequency_hz;
  double err = ((double)calibrated - ref) / ref;
  print_message("source %s: frequency %llu Hz, calibrated %llu Hz, ref %.0f, "
                "error %.5f%%\n",
                xr_clock.source, (unsigned long long)xr_clock.frequency_hz,
                (unsigned long long)calibrated, ref, err * 100);
  assert_true(err < 0.01 && err > -0.01);
  /* The frequency chosen at init agrees with the reference too. */
  double err_init = ((double)xr_clock.frequency_hz - ref) / ref;
  assert_true(err_init < 0.01 && err_init > -0.01);
}

static void calibrate_zero_window_fails(void **state) {
  (void)state;
  assert_int_equal(xr_clock_calibrate(0), 0);
}

static void tsc_is_monotonic_between_reads(void **state) {
  (void)state;
  xr_clock_init();
  uint64_t a = xr_now(), b = xr_now();
  assert_true(b >= a);
}

static void conversions(void **state) {
  (void)state;
  xr_clock_init();
  uint64_t saved = xr_clock.frequency_hz;
  xr_clock.frequency_hz = 2500000000u;
  assert_int_equal(xr_ticks_to_ns(2500000000u), 1000000000u);
  assert_int_equal(xr_ticks_to_ns(5), 2);
  assert_int_equal(xr_ticks_to_ns(UINT64_MAX), 7378697629483820646ull);
  assert_int_equal(xr_us_to_ticks(5), 12500);
  assert_int_equal(xr_us_to_ticks(0), 0);
  assert_int_equal(xr_us_to_ticks(1000000), 2500000000u);
  assert_int_equal(xr_us_to_ticks(UINT64_MAX), UINT64_MAX); /* saturates */
  assert_int_equal(xr_us_to_ticks(7378697629483820ull), 18446744073709550000ull);
  xr_clock.frequency_hz = 1000000000u;
  assert_int_equal(xr_ticks_to_ns(123456789012345ull), 123456789012345ull);
  assert_int_equal(xr_us_to_ticks(5), 5000);
  xr_clock.frequency_hz = 3000000001u; /* odd frequency: exact floor */
  assert_int_equal(xr_ticks_to_ns(3000000001ull * 7), 7000000000u);
  assert_int_equal(xr_us_to_ticks(3), 9000);
  assert_int_equal(xr_us_to_ticks(1000000), 3000000001u);
  xr_clock.frequency_hz = saved;
}

static void cpu_id_matches_pinned_cpu(void **state) {
  (void)state;
  xr_clock_init();
  cpu_set_t original;
  assert_int_equal(sched_getaffinity(0, sizeof original, &original), 0);
  int checked = 0;
  unsigned methods_seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && checked < 4; cpu++) {
    if (!CPU_ISSET(cpu, &original))
      continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_int_equal(xr_cpu_id(), (uint32_t)cpu);
    /* Every method this machine supports agrees. */
    for (int m = XR_CPU_ID_RSEQ; m <= XR_CPU_ID_SCHED; m++) {
      uint32_t got;
      if (test_cpu_id_by((enum xr_cpu_id_method)m, &got) == 0) {
        assert_int_equal(got, (uint32_t)cpu);
        methods_seen |= 1u << m;
      }
    }
    checked++;
  }
  sched_setaffinity(0, sizeof original, &original);
  assert_true(checked > 0);
  print_message("cpu id methods checked (bit 1 rseq, 2 cpu-id instruction, "
                "3 tick-and-cpu read, 4 sched_getcpu): 0x%x on %d cpus\n",
                methods_seen, checked);
  assert_true(methods_seen & (1u << XR_CPU_ID_SCHED));
}

static void header_bits_and_frequency(void **state) {
  (void)state;
  struct xr_file_header h;
  memset(&h, 0xab, sizeof h);
  xr_file_header_init(&h, 5, 1);
  assert_int_equal(h.version, 5);
  assert_int_equal(h.type, 1);
  assert_int_equal(h.flags, (xr_clock.constant_tsc ? 1u : 0u) |
                                (xr_clock.nonstop_tsc ? 2u : 0u));
  assert_int_equal(h.cycle_frequency, xr_clock.frequency_hz);
  for (int i = 0; i < 8; i++)
    assert_int_equal(h.free_form[i], 0);
  /* bytes 24-31: the runtime's stamp (docs/formats.md "Common header") */
  const uint8_t stamp[8] = {'X', 'R', 'R', 'T', XRAY_RUNTIME_VERSION_MAJOR,
                            XRAY_RUNTIME_VERSION_MINOR,
                            XRAY_RUNTIME_VERSION_PATCH & 0xff,
                            XRAY_RUNTIME_VERSION_PATCH >> 8};
  assert_memory_equal(h.free_form + 8, stamp, 8);
  const uint8_t *raw = (const uint8_t *)&h;
  assert_int_equal(raw[0], 5);
  assert_int_equal(raw[2], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(init_is_silent_at_verbosity_0),
      cmocka_unit_test(calibration_within_one_percent),
      cmocka_unit_test(calibrate_zero_window_fails),
      cmocka_unit_test(tsc_is_monotonic_between_reads),
      cmocka_unit_test(conversions),
      cmocka_unit_test(cpu_id_matches_pinned_cpu),
      cmocka_unit_test(header_bits_and_frequency),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
