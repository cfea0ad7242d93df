/* A CPU without the port's CPU-id readers (x86-64: no rdpid, no rdtscp;
 * what valgrind's decoder accepts on such a host) and a libc without rseq:
 * core reads the CPU with sched_getcpu, FDR takes its slow source with the
 * fast path off, and nothing reads the CPU through the port's instructions.
 *
 * This program defines xr_arch_clock_probe itself, so the linker takes the
 * port's from the archive no more: its caps say "invariant ticks, neither
 * reader". clock.c, clock_lean.c and FDR's controller are compiled again
 * with XR_TEST_POINTS, whose point in clock.h runs before every read
 * through one of the port's two CPU-id instructions: the test counts them.
 * The program runs itself again with glibc's rseq registration off. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/options/options.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "xray/xray_log_interface.h"
#include "collected_trace.h"

void xr_arch_clock_probe(struct xr_arch_clock_caps *out) {
  *out = (struct xr_arch_clock_caps){.invariant_ticks = true,
                                     .exact_hz = 1000000000u,
                                     .exact_source = "test",
                                     .cpu_insn_name = "the CPU-id instruction",
                                     .ticks_cpu_name = "the tick-and-CPU read"};
}

static unsigned long port_reads;
static void count_port_read(void) { port_reads++; }

static int cpu; /* the one CPU this thread runs on (pin) */
static int pin(void **state) {
  (void)state;
  cpu_set_t one;
  CPU_ZERO(&one);
  cpu = sched_getcpu();
  CPU_SET(cpu, &one);
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  return 0;
}

/* Runs E1 E2 X2 X1 in FDR mode, after checking the CPU source it chose
 * and whether its fast path is on; returns the function records in the log
 * and, in *cpu_seen, the CPU of its NewCPUId records (-1: none, -2: two
 * different ones). */
static int fdr_four_events(int source, bool fast, int *cpu_seen) {
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0 "
                                        "no_file_flush=true buffer_size=4096 buffer_max=2"),
                   XRAY_LOG_INITIALIZED);
  assert_int_equal(xr_fdr_hot.cpu_source, source);
  assert_int_equal(xr_fdr_hot.fast_epoch == xr_fdr_hot.epoch, fast);
  assert_int_equal(xr_fdr_hot.fast_epoch == XR_FDR_NO_FAST, !fast);
  xr_fdr_handle_arg0_no_sp(1, ENTRY);
  xr_fdr_handle_arg0_no_sp(2, ENTRY);
  xr_fdr_handle_arg0_no_sp(2, EXIT);
  xr_fdr_handle_arg0_no_sp(1, EXIT);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  /* Version 5: the 32-byte file header, then per buffer a 16-byte extents
   * record with the size, then 16-byte metadata records (odd first byte)
   * and 8-byte function records (even). */
  assert_true(trace_len > 32);
  assert_int_equal(trace[0], 5);
  int functions = 0;
  *cpu_seen = -1;
  size_t off = 32;
  while (off < trace_len) {
    assert_int_equal(trace[off], 0x0F);
    size_t end = off + 16 + xr_fdr_get64(trace + off + 1);
    assert_true(end <= trace_len);
    for (off += 16; off < end;) {
      if (!(trace[off] & 1)) {
        functions++;
        off += 8;
        continue;
      }
      int kind = trace[off] >> 1;
      if (kind == XR_FDR_NEW_CPU) {
        int c = trace[off + 1] | trace[off + 2] << 8;
        *cpu_seen = *cpu_seen == -1 || *cpu_seen == c ? c : -2;
      }
      assert_true(kind != XR_FDR_CUSTOM_EVENT && kind != XR_FDR_TYPED_EVENT);
      off += 16;
    }
  }
  return functions;
}

static void core_reads_the_cpu_with_sched_getcpu(void **state) {
  (void)state;
  xr_clock_init();
  assert_int_equal(xr_cpu_method, XR_CPU_ID_SCHED);
  port_reads = 0;
  for (int i = 0; i < 100; i++)
    assert_int_equal(xr_cpu_id(), cpu);
  assert_int_equal(port_reads, 0);
}

static void fdr_takes_the_slow_source_without_fast_path(void **state) {
  (void)state;
  port_reads = 0;
  int seen;
  assert_int_equal(fdr_four_events(XR_FDR_CPU_SLOW, false, &seen), 4);
  assert_int_equal(seen, cpu);
  assert_int_equal(port_reads, 0);
}

/* The count is live in every copy: with the tick-and-CPU read chosen (as on
 * a CPU that has one), core's read and FDR's events count. Run only where
 * the CPU has it (x86-64: rdtscp); AArch64's is no instruction at all. */
static void the_count_sees_the_port_readers(void **state) {
  (void)state;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000001u, &a, &b, &c, &d) || !(d & (1u << 27)))
    skip();
#endif
  xr_cpu_method = XR_CPU_ID_WITH_TICKS;
  port_reads = 0;
  (void)xr_cpu_id();
  assert_int_equal(port_reads, 1);
  int seen;
  assert_int_equal(fdr_four_events(XR_FDR_CPU_WITH_TICKS, true, &seen), 4);
  assert_int_equal(seen, cpu);
  assert_true(port_reads > 1);
  xr_cpu_method = XR_CPU_ID_SCHED;
}

int main(int argc, char **argv) {
  (void)argc;
  const char *tunables = getenv("GLIBC_TUNABLES");
  if (!tunables || !strstr(tunables, "glibc.pthread.rseq=0")) {
    setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
    execv("/proc/self/exe", argv);
    perror("execv /proc/self/exe");
    return 1;
  }
  if (xr_rseq_available()) {
    printf("SKIP: this libc keeps its rseq symbols with rseq off\n");
    return 77;
  }
  xr_clock_test_port_cpu_read = count_port_read;
  xr_flags_load();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(core_reads_the_cpu_with_sched_getcpu, pin),
      cmocka_unit_test_setup(fdr_takes_the_slow_source_without_fast_path, pin),
      cmocka_unit_test_setup(the_count_sees_the_port_readers, pin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
