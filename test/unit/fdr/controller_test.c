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
#include "core/dispatch/function_ids.h"
#include "core/dispatch/handlers.h"
#include "core/modes/args_sink.h"
#include "core/options/options.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_args.h"
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

/* An "xray-args" event's values, as "S[what.format.status.len=bits'text' ...]". */
static char *args_token(char *out, const uint8_t *data, size_t size) {
  struct xr_arg_call c = {0};
  assert_true(xr_args_event_decode(data, size, &c));
  out += sprintf(out, " S[");
  for (size_t i = 0; i < c.count; i++) {
    const struct xr_arg_value *v = &c.v[i];
    out += sprintf(out, "%s%02x.%u.%u.%u=%llx'%.*s'", i ? " " : "", v->what, v->format,
                   v->status, v->len, (unsigned long long)v->bits, (int)v->len,
                   c.text + v->text);
  }
  return out + sprintf(out, "]");
}

/* The records after the header, extents and preamble, one text token each:
 * "E5" enter #5, "X5" exit, "T5" tail exit, "A5" enter-arg, "C=.." call
 * argument (compiler-rt's), "V11.1=5" a captured value (what, format, bits),
 * "S[...]" an xray-args event (args_token), "W" TSC wrap, "U:abc" custom,
 * "Y3:xyz" typed, "|" a new buffer (show_buffers). NewCPUId skipped. */
static char tokens[1 << 16];
static bool show_cpu; /* print NewCPUId records after the preamble as "N<cpu>" */
static bool show_buffers; /* print "|" before every buffer but the first */
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
    if (show_buffers && out != tokens)
      out += sprintf(out, " |");
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
        if (trace[off + 9] || trace[off + 10])
          out += sprintf(out, " V%02x.%u=%llx", trace[off + 9], trace[off + 10],
                         (unsigned long long)xr_fdr_get64(trace + off + 1));
        else
          out += sprintf(out, " C=%llx", (unsigned long long)xr_fdr_get64(trace + off + 1));
        for (int i = 11; i < 16; i++)
          assert_int_equal(trace[off + i], 0);
        off += 16;
        break;
      case XR_FDR_CUSTOM_EVENT: {
        uint32_t n = xr_fdr_get32(trace + off + 1);
        if (n > 9 && memcmp(trace + off + 16, "xray-args", 9) == 0) {
          if (version >= 5)
            assert_int_equal(xr_fdr_get32(trace + off + 5), 0); /* the record's time */
          out = args_token(out, trace + off + 16, n);
          off += 16 + n;
          break;
        }
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
  /* an exit of a function not entered here (not written), then erasure
   * still works */
  xr_fdr_handle_arg0_no_sp(11, EXIT);
  xr_fdr_handle_arg0_no_sp(12, ENTRY);
  xr_fdr_handle_arg0_no_sp(12, EXIT);
  stop();
  assert_string_equal(records(5), "A9 C=1 X9 E10 U:k X10");
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
 * call is not open (entered before recording) is not written and pops
 * nothing. */
static void recursion_by_stack_pointer(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  xr_fdr_handle_arg0(9, EXIT, 2000); /* not open: dropped, nothing popped */
  xr_fdr_handle_arg0(5, ENTRY, 1000);
  xr_fdr_handle_arg1(5, LOG_ARGS_ENTRY, 7, 900);
  xr_fdr_handle_arg0(5, ENTRY, 800);
  xr_fdr_handle_arg0(5, EXIT, 900);
  xr_fdr_handle_arg0(5, TAIL, 1000);
  assert_true(xr_fdr_thread.top->sp == UINTPTR_MAX);
  stop();
  assert_int_equal(xr_fdr_writers_unmatched(), 1);
  assert_string_equal(records(5), "E5 A5 C=7 E5 U:xray-unwound 1 X5 X5 T5");
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


/* ---- argument values (fdr_args.c) ---------------------------------------- */

/* Adds a value to c (a string: its status and text). */
static void add(struct xr_arg_call *c, uint8_t what, uint8_t format, uint64_t bits,
                uint8_t status, const char *text) {
  size_t used = 0;
  for (size_t i = 0; i < c->count; i++)
    used += c->v[i].len;
  size_t len = text ? strlen(text) : 0;
  c->v[c->count++] = (struct xr_arg_value){bits, what, format, status, (uint8_t)len,
                                           (uint16_t)used};
  memcpy(c->text + used, text ? text : "", len);
  c->strings += format == XR_ARGF_S;
}

static const struct xr_arg_call no_values;

/* The sink is FDR's while it records, and nobody's once it stops. An entry
 * with values: kind 3, a CallArgument per value (what and format in bytes
 * 9 and 10), then the strings in an xray-args event at the same time; an
 * entry or exit without values: the plain record; an exit with its value:
 * the exit, then the event. */
static void values_follow_their_records(void **s) {
  (void)s;
  assert_null(xr_args_sink_get());
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  const struct xr_args_sink *sink = xr_args_sink_get();
  assert_ptr_equal(sink, &xr_fdr_args_sink);
  struct xr_arg_call c = {0}, r = {0};
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, 5, 0, NULL);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_S, 0x1234, XR_ARGS_OK, "hi");
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_FP, 1), XR_ARGF_F, 0x8000000000000000ull, 0, NULL);
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_S, 0, XR_ARGS_NULL, NULL);
  add(&r, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_X, 0x1f, 0, NULL);
  sink->entry(5, &c, 1000);
  sink->entry(6, &no_values, 900);
  sink->exit(6, &no_values, 900);
  sink->exit(5, &r, 1000);
  assert_true(xr_fdr_thread.top->sp == UINTPTR_MAX);
  stop();
  assert_null(xr_args_sink_get());
  assert_string_equal(records(5), "A5 V11.1=5 V12.5=1234 V21.6=8000000000000000 V13.5=0 "
                                  "S[12.5.0.2=1234'hi' 13.5.1.0=0''] E6 X6 X5 "
                                  "S[30.3.0.0=1f'']");
}

/* At a threshold, a call with values is never erased, nor what encloses
 * it; calls without values are, through the sink as through the
 * handlers; an exit with its value is kept (its plain entry too). */
static void values_are_never_erased(void **s) {
  (void)s;
  start("func_duration_threshold_us=1000000 no_file_flush=true buffer_size=4096 buffer_max=2");
  const struct xr_args_sink *sink = xr_args_sink_get();
  struct xr_arg_call c = {0}, r = {0};
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_U, UINT64_MAX, 0, NULL);
  add(&r, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_D, 0x8000000000000000ull, 0, NULL);
  xr_fdr_handle_arg0(9, ENTRY, 2000);
  sink->entry(1, &c, 1000);
  xr_fdr_handle_arg0(2, ENTRY, 900); /* short, nested: erased */
  xr_fdr_handle_arg0(2, EXIT, 900);
  sink->entry(3, &no_values, 900); /* no values: erased */
  sink->exit(3, &no_values, 900);
  sink->entry(4, &no_values, 900); /* a return value: kept */
  sink->exit(4, &r, 900);
  struct xr_arg_call small = {0};
  add(&small, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_D, 3, 0, NULL);
  sink->entry(5, &small, 900); /* a value, then at once the plain exit: kept */
  xr_fdr_handle_arg0(5, EXIT, 900);
  xr_fdr_handle_arg0(1, EXIT, 1000);
  xr_fdr_handle_arg0(9, EXIT, 2000);
  sink->entry(10, &no_values, 900); /* erased again after them */
  sink->exit(10, &no_values, 900);
  stop();
  assert_string_equal(records(5), "E9 A1 V11.2=ffffffffffffffff E4 X4 "
                                  "S[30.1.0.0=8000000000000000''] A5 V12.1=3 X5 "
                                  "X1 X9");
  assert_int_equal(xr_fdr_writers_erased(), 3);
}

/* A call's records and its event are reserved whole: 2048-byte buffers
 * hold one entry of 16 values with 8 strings of 64 bytes (1545 bytes) and
 * its exit each, never part of one; the ring keeps the last 3 calls of 5.
 * In 512-byte buffers such an entry never fits: it is dropped and counted,
 * and its exit, whose call is not open, is not written. */
static void calls_never_split_across_buffers(void **s) {
  (void)s;
  static const char sixty_four[] =
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  struct xr_arg_call c = {0};
  for (uint8_t i = 0; i < 16; i++)
    add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, i % 8 + 1), i < 8 ? XR_ARGF_S : XR_ARGF_X,
        0x100 + i, i < 8 ? XR_ARGS_CUT : 0, i < 8 ? sixty_four : NULL);
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=2048 buffer_max=3");
  for (int i = 0; i < 5; i++) {
    xr_args_sink_get()->entry(1, &c, 1000);
    xr_fdr_handle_arg0(1, EXIT, 1000);
  }
  stop();
  show_buffers = true;
  const char *r = records(5);
  show_buffers = false;
  const char *call = strstr(r, " X1");
  assert_non_null(call);
  size_t one = (size_t)(call - r) + 3; /* "A1 ... X1" */
  assert_int_equal(strlen(r), 3 * one + 2 * 3); /* 3 calls, " | " between */
  for (int i = 0; i < 3; i++) {
    assert_memory_equal(r + i * (one + 3), r, one);
    if (i < 2)
      assert_memory_equal(r + i * (one + 3) + one, " | ", 3);
  }
  assert_true(strncmp(r, "A1 V11.5=100 ", 13) == 0);
  assert_non_null(strstr(r, "V18.3=10f S[11.5.3.64=100'0123456789abcdef"));
  assert_int_equal(xr_fdr_writers_dropped(), 0);

  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=512 buffer_max=3");
  xr_args_sink_get()->entry(1, &c, 1000);
  xr_fdr_handle_arg0(1, EXIT, 1000);
  xr_fdr_handle_arg0(2, ENTRY, 1000);
  stop();
  assert_string_equal(records(5), "E2");
  assert_int_equal(xr_fdr_writers_dropped(), 1);
  assert_int_equal(xr_fdr_writers_unmatched(), 1);
}

/* Version 1: the event's marker holds the absolute time of its record. */
static void values_in_version_1(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2 "
        "format_version=1");
  struct xr_arg_call c = {0}, r = {0};
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_S, 0x99, XR_ARGS_PARTIAL, "ab");
  add(&r, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_F32, 0x7fc00001, 0, NULL);
  xr_args_sink_get()->entry(5, &c, 1000);
  xr_args_sink_get()->exit(5, &r, 1000);
  stop();
  assert_string_equal(records(1), "A5 V11.5=99 S[11.5.4.2=99'ab'] X5 S[30.7.0.0=7fc00001''] EOB");
  const uint8_t *marker = trace + 32 + 48 + 8 + 16;
  assert_int_equal(marker[0], 0x0B);
  assert_true(xr_fdr_get64(marker + 5) > 0xFFFFFFFFull);
  const uint8_t *exit_marker = marker + 16 + xr_fdr_get32(marker + 1) + 8;
  assert_int_equal(exit_marker[0], 0x0B);
  assert_true(xr_fdr_get64(exit_marker + 5) >= xr_fdr_get64(marker + 5));
}

/* The shadow stack as for any event: an entry with values at the stack
 * pointer of a call gone closes it as unwound first; an exit with a value
 * of a call not open is not written (counted). Shared objects' packed ids
 * become dense ids; an object without an id base is not traced. */
static void values_follow_the_shadow_stack_and_dense_ids(void **s) {
  (void)s;
  start("func_duration_threshold_us=0 no_file_flush=true buffer_size=4096 buffer_max=2");
  const struct xr_args_sink *sink = xr_args_sink_get();
  struct xr_arg_call c = {0}, r = {0};
  add(&c, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, 7, 0, NULL);
  add(&r, XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_D, 8, 0, NULL);
  uint32_t saved2 = xr_objects_id_base[2], saved3 = xr_objects_id_base[3];
  xr_objects_id_base[2] = 100;
  xr_objects_id_base[3] = XR_NO_ID_BASE;
  sink->exit(4, &r, 3000); /* not open: not written */
  sink->entry(1, &c, 1000);
  sink->entry(2, &c, 1000); /* 1 is gone */
  sink->entry(xr_pack_id(3, 2), &c, 900);
  sink->exit(xr_pack_id(3, 2), &r, 900);
  sink->entry(xr_pack_id(1, 3), &c, 900); /* no id base: nothing */
  sink->exit(xr_pack_id(1, 3), &r, 900);
  sink->exit(2, &r, 1000);
  xr_objects_id_base[2] = saved2;
  xr_objects_id_base[3] = saved3;
  stop();
  assert_int_equal(xr_fdr_writers_unmatched(), 1);
  assert_string_equal(records(5), "A1 V11.1=7 U:xray-unwound 1 X1 A2 V11.1=7 A103 V11.1=7 "
                                  "X103 S[30.1.0.0=8''] X2 S[30.1.0.0=8'']");
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
      cmocka_unit_test_setup(values_follow_their_records, pin),
      cmocka_unit_test_setup(values_are_never_erased, pin),
      cmocka_unit_test_setup(calls_never_split_across_buffers, pin),
      cmocka_unit_test_setup(values_in_version_1, pin),
      cmocka_unit_test_setup(values_follow_the_shadow_stack_and_dense_ids, pin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
