/* The FDR controller end to end without a compiler: the lean handlers are
 * called directly, the buffers come back through __xray_log_process_buffers,
 * and the record stream is checked record by record: every kind, TSC wrap,
 * erasure of short calls, tail chains and skipped exits. The thread is
 * pinned to one CPU so no NewCPUId appears in the middle (any that does is
 * skipped by the reader below anyway). */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/clock/clock.h"
#include "core/dispatch/handlers.h"
#include "core/options/options.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "xray/xray_log_interface.h"
#include "../cpu_id_methods.h"
#include "core/dispatch/hot_tables.h"
#include "collected_trace.h"

static void start(const char *config) {
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  assert_int_equal(__xray_log_init_mode("xray-fdr", config), XRAY_LOG_INITIALIZED);
}

/* Finalizes, collects the buffers, flushes (no file). */
static void stop(void) {
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
}

/* The records after the header, extents and preamble, one text token each:
 * "E5" enter #5, "X5" exit, "T5" tail exit, "A5" enter-arg, "C=.." call
 * argument, "W" TSC wrap, "U:abc" custom, "Y3:xyz" typed. NewCPUId skipped. */
static char tokens[4096];
static bool show_cpu; /* print NewCPUId records after the preamble as "N<cpu>" */
static const char *records(int version) {
  size_t off = 32;
  char *out = tokens;
  *out = 0;
  assert_true(trace_len >= off);
  assert_int_equal(trace[0], version);
  while (off < trace_len) {
    size_t end;
    if (version >= 2) {
      assert_int_equal(trace[off], 0x0F);
      end = off + 16 + xr_fdr_get64(trace + off + 1);
      off += 16;
    } else {
      end = trace_len; /* one buffer in these tests */
    }
    assert_int_equal(trace[off], 0x01);                 /* NewBuffer */
    assert_int_equal(xr_fdr_get32(trace + off + 1), (uint32_t)gettid());
    assert_int_equal(trace[off + 16], 0x09);            /* Walltime */
    off += 32;
    if (version >= 3) {
      assert_int_equal(trace[off], 0x13);               /* Pid */
      assert_int_equal(xr_fdr_get32(trace + off + 1), (uint32_t)getpid());
      off += 16;
    }
    assert_int_equal(trace[off], 0x05);                 /* NewCPUId */
    off += 16;
    while (off < end) {
      uint8_t b = trace[off];
      if (!(b & 1)) {
        uint32_t w = xr_fdr_get32(trace + off);
        const char k[] = "EXTA";
        out += sprintf(out, "%s%c%u", out == tokens ? "" : " ", k[(w >> 1) & 7], w >> 4);
        off += 8;
        continue;
      }
      switch (b >> 1) {
      case XR_FDR_NEW_CPU:
        if (show_cpu)
          out += sprintf(out, " N%u", (unsigned)(trace[off + 1] | trace[off + 2] << 8));
        off += 16;
        break;
      case XR_FDR_TSC_WRAP: out += sprintf(out, " W"); off += 16; break;
      case XR_FDR_CALL_ARGUMENT:
        out += sprintf(out, " C=%llx", (unsigned long long)xr_fdr_get64(trace + off + 1));
        off += 16;
        break;
      case XR_FDR_CUSTOM_EVENT: {
        uint32_t n = xr_fdr_get32(trace + off + 1);
        out += sprintf(out, " U:%.*s", (int)n, (const char *)trace + off + 16);
        off += 16 + n;
        break;
      }
      case XR_FDR_TYPED_EVENT: {
        uint32_t n = xr_fdr_get32(trace + off + 1);
        uint16_t type = (uint16_t)(trace[off + 9] | trace[off + 10] << 8);
        out += sprintf(out, " Y%u:%.*s", type, (int)n, (const char *)trace + off + 16);
        off += 16 + n;
        break;
      }
      case XR_FDR_END_OF_BUFFER:
        assert_int_equal(version, 1);
        out += sprintf(out, " EOB");
        off += 16;
        break;
      default:
        fail_msg("unexpected record byte %#x at %zu", b, off);
      }
    }
    assert_int_equal(off, end);
  }
  return tokens;
}

static int pin(void **state) {
  (void)state;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  return 0;
}

static void every_kind_and_a_tsc_wrap(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  xr_fdr_handle_arg0_no_sp(5, ENTRY);
  xr_fdr_thread.last_tsc -= 1ull << 33; /* the next delta does not fit */
  xr_fdr_handle_arg0_no_sp(5, EXIT);
  xr_fdr_handle_arg1_no_sp(6, LOG_ARGS_ENTRY, 0xABCDEF);
  xr_fdr_handle_arg0_no_sp(7, LOG_ARGS_ENTRY); /* no argument: a plain enter */
  xr_fdr_handle_arg0_no_sp(7, TAIL);
  xr_fdr_handle_custom("abc", 3);
  xr_fdr_handle_custom("never", 0); /* empty: never written */
  xr_fdr_handle_typed(3, "xyz12", 5);
  xr_fdr_handle_arg0_no_sp(6, EXIT);
  stop();
  assert_string_equal(records(5), "E5 W X5 A6 C=abcdef E7 T7 U:abc Y3:xyz12 X6");
}

static void short_calls_are_erased(void **s) {
  (void)s;
  start("func_duration_threshold_us=1000000 no_file_flush=true buffer_size=4096 buffer_max=2");
  /* nested */
  xr_fdr_handle_arg0_no_sp(1, ENTRY);
  xr_fdr_handle_arg0_no_sp(2, ENTRY);
  xr_fdr_handle_arg0_no_sp(2, EXIT);
  xr_fdr_handle_arg0_no_sp(1, EXIT);
  /* a tail chain 3 -> 4 -> 5 */
  xr_fdr_handle_arg0_no_sp(3, ENTRY);
  xr_fdr_handle_arg0_no_sp(3, TAIL);
  xr_fdr_handle_arg0_no_sp(4, ENTRY);
  xr_fdr_handle_arg0_no_sp(4, TAIL);
  xr_fdr_handle_arg0_no_sp(5, ENTRY);
  xr_fdr_handle_arg0_no_sp(5, EXIT);
  /* skipped exits: 7 and 8 left by longjmp, 6 exits */
  xr_fdr_handle_arg0_no_sp(6, ENTRY);
  xr_fdr_handle_arg0_no_sp(7, ENTRY);
  xr_fdr_handle_arg0_no_sp(8, ENTRY);
  xr_fdr_handle_arg0_no_sp(6, EXIT);
  /* never erased: enter with argument, custom events */
  xr_fdr_handle_arg1_no_sp(9, LOG_ARGS_ENTRY, 1);
  xr_fdr_handle_arg0_no_sp(9, EXIT);
  xr_fdr_handle_arg0_no_sp(10, ENTRY);
  xr_fdr_handle_custom("k", 1);
  xr_fdr_handle_arg0_no_sp(10, EXIT);
  /* an exit of a function not entered here, then erasure still works */
  xr_fdr_handle_arg0_no_sp(11, EXIT);
  xr_fdr_handle_arg0_no_sp(12, ENTRY);
  xr_fdr_handle_arg0_no_sp(12, EXIT);
  stop();
  assert_string_equal(records(5), "A9 C=1 X9 E10 U:k X10 X11");
}

static void threshold_zero_keeps_everything(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  xr_fdr_handle_arg0_no_sp(1, ENTRY);
  xr_fdr_handle_arg0_no_sp(1, EXIT);
  xr_fdr_handle_arg0_no_sp(3, ENTRY);
  xr_fdr_handle_arg0_no_sp(3, TAIL);
  stop();
  assert_string_equal(records(5), "E1 X1 E3 T3");
}

static void version_1(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2 format_version=1");
  xr_fdr_handle_arg0_no_sp(1, ENTRY);
  xr_fdr_handle_custom("v1", 2);
  xr_fdr_handle_typed(2, "dropped", 7); /* no typed events in version 1 */
  xr_fdr_handle_arg0_no_sp(1, EXIT);
  stop();
  assert_string_equal(records(1), "E1 U:v1 X1 EOB");
  /* the v1 custom marker: size, then the absolute TSC (not a delta) */
  const uint8_t *marker = trace + 32 + 48 + 8;
  assert_int_equal(marker[0], 0x0B);
  assert_int_equal(xr_fdr_get32(marker + 1), 2);
  assert_true(xr_fdr_get64(marker + 5) > 0xFFFFFFFFull);
}

static void buffers_switch_and_never_overflow(void **s) {
  (void)s;
  /* 256-byte buffers: 64 bytes of preamble, then 24 function records (on
   * the same CPU nothing else is needed). 200 records need 9 buffers, only
   * 4 exist: the oldest are overwritten and the newest 4 stay (3 full, the
   * last with 8 records). records() checks that each buffer ends exactly at
   * its extents. The 180-byte custom event fits no buffer and is dropped. */
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=256 buffer_max=4");
  for (int i = 0; i < 100; i++) {
    xr_fdr_handle_arg0_no_sp(1, ENTRY);
    xr_fdr_handle_arg0_no_sp(1, EXIT);
  }
  xr_fdr_handle_custom("too-big-for-a-256-byte-buffer-too-big-for-a-256-byte-buffer-"
                       "too-big-for-a-256-byte-buffer-too-big-for-a-256-byte-buffer-"
                       "too-big-for-a-256-byte-buffer-too-big-for-a-256-byte-buffer-", 180);
  stop();
  assert_int_equal(trace_len, 32 + 3 * (16 + 64 + 24 * 8) + (16 + 64 + 8 * 8));
  const char *r = records(5);
  size_t n = strlen(r);
  assert_int_equal(n, (3 * 24 + 8) * 3 - 1); /* 80 tokens of 2 chars */
  assert_string_equal(r + n - 5, "E1 X1");
}

/* Selecting the mode installs nothing (no cost per event); init installs
 * the four lean handlers; finalize removes them. */
static void handlers_only_while_initialised(void **s) {
  (void)s;
  assert_int_equal(__xray_log_select_mode("xray-fdr"), XRAY_REGISTRATION_OK);
  for (int i = 0; i < XR_SLOT_COUNT; i++) {
    assert_null(xr_handler_lean[i]);
    assert_null(xr_handler_full[i]);
  }
  start("func_duration_threshold_us=0 no_file_flush=true");
  assert_ptr_equal(xr_handler_lean[XR_SLOT_ARG0], (void *)xr_fdr_handle_arg0);
  assert_ptr_equal(xr_handler_lean[XR_SLOT_ARG1], (void *)xr_fdr_handle_arg1);
  assert_ptr_equal(xr_handler_lean[XR_SLOT_CUSTOM], (void *)xr_fdr_handle_custom);
  assert_ptr_equal(xr_handler_lean[XR_SLOT_TYPED], (void *)xr_fdr_handle_typed);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  for (int i = 0; i < XR_SLOT_COUNT; i++)
    assert_null(xr_handler_lean[i]);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
}

static cpu_set_t initial_affinity; /* as the process started, from main */

/* Records never go past the pages the holder has faulted in: the room
 * ends where the populated part does, and the controller populates the
 * next step when the writer reaches it (buffer_queue.h,
 * XR_FDR_POPULATE_STEP, 1 MiB). 80000 calls fill 1.28 MB of a 4 MiB
 * buffer. The populating helper is off (populate_ahead_mb=0): 8 MiB of
 * buffers would start it, and it may fill the buffer before the writer
 * takes it (unit.fdr_prefault tests the helper). */
static void records_stay_within_populated_pages(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4194304 buffer_max=2 "
        "populate_ahead_mb=0");
  for (int i = 0; i < 80000; i++) {
    xr_fdr_handle_arg0_no_sp(7, ENTRY);
    xr_fdr_handle_arg0_no_sp(7, EXIT);
  }
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  struct xr_fdr_buffer *b = &xr_fdr_queue.buffers[0];
  assert_true(b->flush_extents >= 80000 * 16);
  assert_true(b->populated >= b->flush_extents);
  assert_true(b->populated < 4194304); /* in steps, not all at once */
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
}

/* Moves the calling thread to `cpu` (sched_setaffinity migrates before it
 * returns). */
static void move_to(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
  assert_int_equal(sched_getcpu(), cpu);
}

/* Every CPU-id source the handlers can use (rseq, the port's CPU-id
 * instruction, its tick-and-CPU read, the sched_getcpu slow path) notices a
 * migration: a NewCPUId with the new CPU comes before the first record
 * written there, on the fast path and on the full one. The source is forced after init, with the fast path allowed as
 * init would allow it (fdr_mode.c, advance_epoch). Sources this machine
 * lacks are skipped; with a single CPU the whole test is. */
static void cpu_sources_follow_a_migration(void **s) {
  (void)s;
  cpu_set_t allowed = initial_affinity; /* the other tests pin */
  int a = -1, b = -1;
  for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
    if (CPU_ISSET(c, &allowed)) {
      if (a < 0)
        a = c;
      else
        b = c;
    }
  if (b < 0)
    skip();
  const struct { int source; enum xr_cpu_id_method needs; const char *name; } sources[] = {
      {XR_FDR_CPU_RSEQ, XR_CPU_ID_RSEQ, "rseq"},
      {XR_FDR_CPU_INSN, XR_CPU_ID_INSN, "cpu-id instruction"},
      {XR_FDR_CPU_WITH_TICKS, XR_CPU_ID_WITH_TICKS, "tick-and-cpu read"},
      {XR_FDR_CPU_SLOW, XR_CPU_ID_SCHED, "sched_getcpu"},
  };
  int tested = 0;
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
    uint32_t probe;
    if (test_cpu_id_by(sources[i].needs, &probe) != 0) {
      printf("cpu source %s: not on this machine, skipped\n", sources[i].name);
      continue;
    }
    move_to(a);
    start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
    xr_fdr_hot.cpu_source = sources[i].source;
    xr_fdr_hot.fast_epoch =
        sources[i].source == XR_FDR_CPU_SLOW ? XR_FDR_NO_FAST : xr_fdr_hot.epoch;
    xr_fdr_handle_arg0_no_sp(1, ENTRY); /* full path: the buffer, the preamble */
    xr_fdr_handle_arg0_no_sp(2, ENTRY); /* fast path where allowed */
    move_to(b);
    xr_fdr_handle_arg0_no_sp(2, EXIT);
    xr_fdr_handle_arg0_no_sp(1, EXIT);
    move_to(a);
    xr_fdr_handle_arg0_no_sp(3, ENTRY);
    xr_fdr_handle_arg0_no_sp(3, EXIT);
    stop();
    show_cpu = true;
    char want[128];
    snprintf(want, sizeof want, "E1 E2 N%d X2 X1 N%d E3 X3", b, a);
    printf("cpu source %s: %s\n", sources[i].name, records(5));
    assert_string_equal(records(5), want);
    show_cpu = false;
    tested++;
  }
  /* sched_getcpu, and one more on any machine this runs on: rseq, or on
   * x86-64 the tick-and-CPU read (rdtscp) */
  assert_true(tested >= 2);
}


/* Calls left by an exception caught where no sled sees it (explicit stack
 * pointers, as the trampolines pass them): thrower (1) at sp 1000 three
 * times, then later (2) at 1100. Each entry finds the one before gone:
 * "xray-unwound 1" and its exit, at that entry's time. */
static void exception_caught_where_no_sled_is(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  for (int i = 0; i < 3; i++)
    xr_fdr_handle_arg0(1, ENTRY, 1000);
  xr_fdr_handle_arg0(2, ENTRY, 1100);
  xr_fdr_handle_arg0(2, EXIT, 1100);
  assert_true(xr_fdr_thread.top->sp == UINTPTR_MAX); /* nothing left open */
  stop();
  assert_string_equal(records(5), "E1 U:xray-unwound 1 X1 E1 U:xray-unwound 1 X1 E1 "
                                  "U:xray-unwound 1 X1 E2 X2");
}

/* Recursion: f at 1000 -> 900 -> 800 throws, caught at 900, which returns:
 * its exit closes the call at 800 first; by id alone it would have closed
 * that one as its own. An arg-logging entry pushes like any; an exit whose
 * call is not open (entered before recording) pops nothing. */
static void recursion_by_stack_pointer(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  xr_fdr_handle_arg0(9, EXIT, 2000); /* not open: written, nothing popped */
  xr_fdr_handle_arg0(5, ENTRY, 1000);
  xr_fdr_handle_arg1(5, LOG_ARGS_ENTRY, 7, 900);
  xr_fdr_handle_arg0(5, ENTRY, 800);
  xr_fdr_handle_arg0(5, EXIT, 900);
  xr_fdr_handle_arg0(5, TAIL, 1000);
  assert_true(xr_fdr_thread.top->sp == UINTPTR_MAX);
  stop();
  assert_string_equal(records(5), "X9 E5 A5 C=7 E5 U:xray-unwound 1 X5 X5 T5");
}

/* With a threshold, calls left short are rewound like short calls (here
 * all three, entries included); a long one is closed as unwound. */
static void left_short_calls_are_erased(void **s) {
  (void)s;
  start("func_duration_threshold_us=1000000 no_file_flush=true buffer_size=4096 buffer_max=2");
  xr_fdr_handle_arg0(1, ENTRY, 1000);
  xr_fdr_handle_arg0(2, ENTRY, 900);
  xr_fdr_handle_arg0(3, ENTRY, 800);
  xr_fdr_handle_arg0(4, ENTRY, 1000); /* 1, 2 and 3 are gone */
  xr_fdr_handle_custom("k", 1);         /* 4's entry is final now */
  xr_fdr_handle_arg0(5, ENTRY, 1000);   /* 4 is gone, not rewindable */
  xr_fdr_handle_arg0(5, EXIT, 1000);
  stop();
  assert_string_equal(records(5), "E4 U:k U:xray-unwound 1 X4");
}

/* Deeper than the shadow stack holds: the calls beyond it are counted,
 * not held; an exception that takes them all closes the held ones
 * (in pieces of at most 64 exits) and drops the count. */
static void deeper_than_the_shadow_stack(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=131072 buffer_max=2");
  const unsigned held = XR_FDR_FRAMES - 1, extra = 5;
  for (unsigned i = 0; i < held + extra; i++)
    xr_fdr_handle_arg0(7, ENTRY, 1000000 - 16 * (uintptr_t)i);
  assert_int_equal(xr_fdr_thread.untracked, extra);
  xr_fdr_handle_arg0(8, ENTRY, 1000000);
  assert_int_equal(xr_fdr_thread.untracked, 0);
  xr_fdr_handle_arg0(8, EXIT, 1000000);
  assert_true(xr_fdr_thread.top->sp == UINTPTR_MAX);
  assert_int_equal(__xray_log_finalize(), XRAY_LOG_FINALIZED);
  trace_len = 0;
  assert_int_equal(__xray_log_process_buffers(collect), XRAY_LOG_FLUSHED);
  assert_int_equal(__xray_log_flushLog(), XRAY_LOG_FLUSHED);
  unsigned enters = 0, exits = 0, said = 0, pieces = 0;
  for (size_t off = 32 + 16 + 64; off < trace_len;) {
    uint8_t b = trace[off];
    if (!(b & 1)) {
      uint32_t w = xr_fdr_get32(trace + off);
      enters += ((w >> 1) & 7) == 0 && (w >> 4) == 7;
      exits += ((w >> 1) & 7) == 1 && (w >> 4) == 7;
      off += 8;
    } else if ((b >> 1) == XR_FDR_CUSTOM_EVENT) {
      uint32_t n = xr_fdr_get32(trace + off + 1);
      uint64_t k = xr_fdr_unwound_count(trace + off + 16, n);
      assert_true(k >= 1 && k <= 64);
      said += (unsigned)k;
      pieces++;
      off += 16 + n;
    } else {
      off += 16;
    }
  }
  assert_int_equal(enters, held + extra);
  assert_int_equal(exits, held);
  assert_int_equal(said, held);
  assert_int_equal(pieces, (held + 63) / 64);
}

int main(void) {
  if (sched_getaffinity(0, sizeof initial_affinity, &initial_affinity) != 0)
    CPU_ZERO(&initial_affinity);
  xr_flags_load();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(handlers_only_while_initialised),
      cmocka_unit_test_setup(every_kind_and_a_tsc_wrap, pin),
      cmocka_unit_test_setup(short_calls_are_erased, pin),
      cmocka_unit_test_setup(exception_caught_where_no_sled_is, pin),
      cmocka_unit_test_setup(recursion_by_stack_pointer, pin),
      cmocka_unit_test_setup(left_short_calls_are_erased, pin),
      cmocka_unit_test_setup(deeper_than_the_shadow_stack, pin),
      cmocka_unit_test_setup(threshold_zero_keeps_everything, pin),
      cmocka_unit_test_setup(version_1, pin),
      cmocka_unit_test_setup(buffers_switch_and_never_overflow, pin),
      cmocka_unit_test(cpu_sources_follow_a_migration),
      cmocka_unit_test_setup(records_stay_within_populated_pages, pin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
