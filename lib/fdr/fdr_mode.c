/* FDR mode: its options and the init/finalize/flush work, which
 * installs the handlers, maps the buffers and hands the file to fdr_file.c,
 * the snapshots to fdr_triggers.c and fdr_slow_call.c.
 *
 * States: core's one lifecycle (core/modes/mode_lifecycle.h: the transitions,
 * what a call in the wrong state returns, the memory ordering), in
 * xr_fdr_lifecycle (fdr_state.c) because the snapshot reads it too. */
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/dispatch/handlers.h"
#include "core/modes/log_registry.h"
#include "core/objects/objects.h"
#include "core/options/options.h"
#include "core/output/output.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"
#include "export/thread_names.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_args.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_controller_slow.h"
#include "fdr/fdr_crash_trace.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_file.h"
#include "fdr/fdr_prefault.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_slow_call.h"
#include "fdr/fdr_snaptrace.h"
#include "fdr/fdr_snapshot_names.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "fdr/fdr_triggers.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

struct fdr_options {
  int32_t func_duration_threshold_us;
  int32_t grace_period_ms;
  int32_t buffer_size;
  int32_t buffer_max;
  int32_t populate_ahead_mb;
  bool no_file_flush;
  int32_t format_version;
  char snapshot_signal[32];
  bool snapshot_on_crash;
  int32_t snapshot_if_slower_than_us;
  char snapshot_function[256];
  int32_t snapshot_min_interval_ms;
  char trace_output[32];
};

#define OPT(name, type, def, min, max, help)                                   \
  {#name, type, offsetof(struct fdr_options, name), 0, def, min, max, help,    \
   NULL}
#define OPT_STRING(name, def, help)                                            \
  {#name, XR_OPT_STRING, offsetof(struct fdr_options, name),                   \
   sizeof(((struct fdr_options *)0)->name), def, 0, 0, help, NULL}
static const struct xr_option fdr_option_rows[] = {
    OPT(func_duration_threshold_us, XR_OPT_INT, "5", 0, 1000000000,
        "calls shorter than this many microseconds are erased"),
    OPT(grace_period_ms, XR_OPT_INT, XR_QUIESCE_BOUND_DEFAULT_TEXT, 0, 3600000,
        "longest wait at finalize for threads still writing an event"
        XR_QUIESCE_BOUND_RANGE_TEXT),
    OPT(buffer_size, XR_OPT_INT, "16384", 128, 1 << 30,
        "bytes per buffer"),
    OPT(buffer_max, XR_OPT_INT, "100", 1, 1 << 20, "number of buffers"),
    OPT(populate_ahead_mb, XR_OPT_INT, "32", 0, 1 << 20,
        "MiB of fresh buffers a helper thread faults in ahead of the "
        "writers, when the buffers hold more than 4 MiB (0: no helper)"),
    OPT(no_file_flush, XR_OPT_BOOL, "false", 0, 0,
        "flush writes no file (buffers only via __xray_log_process_buffers)"),
    OPT(format_version, XR_OPT_INT, "5", 1, 5,
        "file format: 5 (llvm-xray 7+) or 1 (the 2017 layout)"),
    {"trace_output", XR_OPT_STRING, offsetof(struct fdr_options, trace_output),
     sizeof(((struct fdr_options *)0)->trace_output), "xray", 0, 0,
     "files to write at flush, and beside each snapshot soon after it, "
     "several joined by '+'",
     xr_trace_outputs_help},
    OPT_STRING(snapshot_signal, "",
               "this signal (SIGUSR2, USR2 or a number) writes a snapshot"),
    OPT(snapshot_on_crash, XR_OPT_BOOL, "false", 0, 0,
        "a crash signal writes a snapshot before the crash goes on"),
    OPT(snapshot_if_slower_than_us, XR_OPT_INT, "0", 0, 1000000000,
        "a call of snapshot_function slower than this writes a snapshot"),
    OPT_STRING(snapshot_function, "",
               "the functions the slow-call trigger watches: an id or name "
               "patterns"),
    OPT(snapshot_min_interval_ms, XR_OPT_INT, "1000", 0, 86400000,
        "at most one slow-call snapshot per this many milliseconds"),
};
XR_HIDDEN const struct xr_option_table xr_fdr_options_table = {
    "XRAY_FDR_OPTIONS", fdr_option_rows, XR_ARRAY_SIZE(fdr_option_rows)};

/* Moves the epoch by `by` and the fast path's copy with it (see
 * xr_fdr_hot_config). When the epoch closes, both change before
 * xr_fdr_writers_quiesce's membarrier, so a fast-path writer either is seen
 * busy or reads the new fast_epoch and backs out. */
static void advance_epoch(uint64_t by) {
  uint64_t e = __atomic_add_fetch(&xr_fdr_hot.epoch, by, __ATOMIC_SEQ_CST);
  bool fast = (e & 1) && xr_fdr_hot.cpu_source != XR_FDR_CPU_SLOW &&
              xr_clock.using_ticks;
  __atomic_store_n(&xr_fdr_hot.fast_epoch, fast ? e : XR_FDR_NO_FAST,
                   __ATOMIC_SEQ_CST);
}

static struct fdr_trigger_options triggers;
static struct fdr_options options;
static unsigned outputs; /* XR_TRACE_OUT_* of options.trace_output */
static bool queue_quiescent = true; /* no writer can be inside xr_fdr_queue */

/* Defaults -> XRAY_FDR_OPTIONS (or, when that is unset or empty, the legacy
 * xray_fdr_log_* flags) -> the deprecated log_init sizes -> the config
 * string. Returns the number of bad values (each already reported). */
static int load_options(size_t sizes_buffer, size_t sizes_max,
                        const void *config, size_t config_size) {
  xr_options_set_defaults(&xr_fdr_options_table, &options);
  int bad = 0;
  const char *env = xr_getenv("XRAY_FDR_OPTIONS");
  if (env && *env) {
    bad += xr_options_parse(&xr_fdr_options_table, &options, env,
                            "XRAY_FDR_OPTIONS");
  } else {
    options.func_duration_threshold_us =
        xr_flags.xray_fdr_log_func_duration_threshold_us;
    options.grace_period_ms = xr_flags.xray_fdr_log_grace_period_ms;
  }
  if (sizes_buffer || sizes_max) {
    if (sizes_buffer < 128 || sizes_buffer > (1u << 30) || sizes_max < 1 ||
        sizes_max > (1u << 20)) {
      xr_report(XR_ERROR,
                "xray-fdr: log_init sizes out of range (buffer size %zu, "
                "buffers %zu)",
                sizes_buffer, sizes_max);
      bad++;
    } else {
      options.buffer_size = (int32_t)sizes_buffer;
      options.buffer_max = (int32_t)sizes_max;
    }
  }
  bad += xr_options_parse_config(&xr_fdr_options_table, &options, config,
                                 config_size, "xray-fdr config");
  triggers = (struct fdr_trigger_options){0, options.snapshot_on_crash,
                                          options.snapshot_if_slower_than_us,
                                          0, options.snapshot_min_interval_ms};
  if (options.snapshot_signal[0] &&
      (triggers.signo = xr_fdr_parse_signal(options.snapshot_signal)) == 0)
    bad++;
  if (bad == 0 &&
      xr_fdr_slow_call_prepare(&triggers, options.snapshot_function) != 0)
    bad++;
  outputs = xr_trace_outputs_parse(options.trace_output);
  if (outputs == 0) {
    xr_report(XR_ERROR,
              "xray-fdr: trace_output=%s is not a list of %s",
              options.trace_output, xr_trace_outputs_words());
    bad++;
  }
  if (options.format_version != 5 && options.format_version != 1) {
    xr_report(XR_ERROR,
              "xray-fdr: format_version=%d is not supported (use 5 or 1)",
              (int)options.format_version);
    bad++;
  }
  return bad;
}

static void install_handlers(bool on) {
  /* The slow-call trigger has handlers of its own: off, it costs nothing. */
  bool watch = xr_fdr_hot.watch_count != 0;
  xr_handler_install_lean(XR_SLOT_ARG0,
                          !on     ? NULL
                          : watch ? (void *)xr_fdr_handle_arg0_watch
                                  : (void *)xr_fdr_handle_arg0,
                          !on     ? NULL
                          : watch ? (void *)xr_fdr_handle_arg0_watch_no_sp
                                  : (void *)xr_fdr_handle_arg0_no_sp,
                          XR_HANDLER_DENSE);
  xr_handler_install_lean(XR_SLOT_ARG1,
                          !on     ? NULL
                          : watch ? (void *)xr_fdr_handle_arg1_watch
                                  : (void *)xr_fdr_handle_arg1,
                          !on     ? NULL
                          : watch ? (void *)xr_fdr_handle_arg1_watch_no_sp
                                  : (void *)xr_fdr_handle_arg1_no_sp,
                          XR_HANDLER_DENSE);
  xr_handler_install(XR_SLOT_CUSTOM, on ? (void *)xr_fdr_handle_custom : NULL,
                     XR_HANDLER_LEAN);
  xr_handler_install(XR_SLOT_TYPED, on ? (void *)xr_fdr_handle_typed : NULL,
                     XR_HANDLER_LEAN);
  /* Captured argument values (lib/args): set with the handlers, once the
   * state is ready; cleared with them, before finalize quiesces, so that
   * a sink call in flight is one of the writers it waits for (the sink
   * writes under the same guard and epoch check). Another mode's sink is
   * left alone. */
  if (on)
    xr_args_sink_set(&xr_fdr_args_sink);
  else if (xr_args_sink_get() == &xr_fdr_args_sink)
    xr_args_sink_set(NULL);
}

/* Thread exit: the trace files show thread names, which /proc forgets. */
static void thread_exit(void) {
  if (xr_trace_outputs_streamed(outputs) && xr_fdr_thread.writer != NULL)
    xr_thread_names_remember();
  xr_fdr_thread_exit();
}

/* No trigger, no event recorded: finalize's first step, and a fork child's
 * whose mode dropped another thread's transition. */
static void stop_recording(void) {
  xr_fdr_triggers_remove(); /* no snapshot once recording stops */
  xr_fdr_crash_trace_stop();
  /* Close the gate (epoch becomes even), stop calling us. */
  if (__atomic_load_n(&xr_fdr_hot.epoch, __ATOMIC_SEQ_CST) & 1)
    advance_epoch(1);
  install_handlers(false);
  xr_objects_dense_recording(NULL);
}

static void fork_child(void) {
  /* A snapshot being written by another thread stays the parent's. */
  __atomic_store_n(&xr_fdr_snapshots_inside, 0, __ATOMIC_RELAXED);
  xr_fdr_prefault_fork_child();
  xr_fdr_triggers_fork_child();
  xr_fdr_snaptrace_fork_child();
  xr_fdr_thread_forget_after_fork();
  if (xr_lifecycle_after_fork(&xr_fdr_lifecycle) != XR_NO_TRANSITION) {
    /* Another thread was initialising, finalizing or flushing: the child's
     * mode is UNINITIALIZED (core/modes/mode_lifecycle.h) and records nothing.
     * The buffers may be half made or half closed and hold the parent's
     * events: never written here, and the next init forgets them (left
     * mapped: copy-on-write pages of the parent, never touched). */
    stop_recording();
    queue_quiescent = false;
  } else if (xr_lifecycle_status(&xr_fdr_lifecycle) == XRAY_LOG_INITIALIZED) {
    /* The parent's events are the parent's: start empty, new epoch. */
    xr_fdr_queue_reset(&xr_fdr_queue);
    xr_fdr_writers_reset_counters();
    advance_epoch(2);
  }
}

static XRayLogInitStatus fdr_init(size_t buffer_size, size_t buffer_max,
                                  void *args, size_t args_size) {
  XRayLogInitStatus now;
  /* Before any transition: a fork in the middle of the first one must find
   * the hook (core/modes/mode_lifecycle.h). Idempotent. */
  static int no_fork_hook;
  if (xr_thread_on_fork_child(fork_child) != 0)
    xr_report_once(&no_fork_hook, XR_ERROR, "xray-fdr: no fork hook left; "
                   "a child may write its parent's events again");
  if (!xr_lifecycle_begin_init(&xr_fdr_lifecycle, &now)) {
    xr_report(XR_ERROR, "xray-fdr: cannot initialise: already initialised "
                        "(finalize and flush first)");
    return now;
  }
  /* A deprecated call passes sizes (and an old options struct we ignore);
   * a current one passes a config string in args. */
  bool sizes = buffer_size != 0 || buffer_max != 0;
  if (!sizes && args == NULL) {
    xr_report(XR_ERROR, "xray-fdr: no configuration given to log_init");
    return xr_lifecycle_end_init(&xr_fdr_lifecycle, false);
  }
  if (load_options(buffer_size, buffer_max, sizes ? NULL : args,
                   args_size) != 0) {
    xr_report(XR_ERROR, "xray-fdr: bad configuration; not initialised");
    return xr_lifecycle_end_init(&xr_fdr_lifecycle, false);
  }

  /* Fresh buffers for this generation. The old ones go only if finalize saw
   * every writer leave them; otherwise they are left mapped (a straggler
   * may still be inside) and only their address is forgotten. */
  xr_fdr_prefault_stop(); /* finalize did, unless it never ran */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (queue_quiescent &&
      __atomic_load_n(&xr_fdr_snapshots_inside, __ATOMIC_SEQ_CST) == 0)
    xr_fdr_queue_destroy(&xr_fdr_queue);
  if (xr_fdr_queue_init(&xr_fdr_queue, (size_t)options.buffer_size,
                        (size_t)options.buffer_max) != 0) {
    xr_report(XR_ERROR,
              "xray-fdr: cannot map %d buffers of %d bytes: %s; not "
              "initialised",
              (int)options.buffer_max, (int)options.buffer_size,
              strerror(errno));
    return xr_lifecycle_end_init(&xr_fdr_lifecycle, false);
  }
  queue_quiescent = true;

  xr_clock_init();
  xr_quiesce_setup();
  /* Before the gate opens, so the first buffers are being populated by the
   * time an event wants one. (The membarrier registration above is done
   * at start, before the program's threads: here it costs nothing.) */
  bool ahead = xr_fdr_prefault_start(&xr_fdr_queue,
                                     (size_t)options.populate_ahead_mb << 20);
  xr_fdr_writers_reset_counters();
  xr_fdr_detect_rseq();
  int version = options.format_version;
  size_t cap = (size_t)options.buffer_size - (version < 2 ? XR_FDR_META_SIZE : 0);
  size_t preamble = version >= 3 ? XR_FDR_PREAMBLE_V5 : XR_FDR_PREAMBLE_V1;
  xr_fdr_hot.version = version;
  xr_fdr_hot.threshold_ticks =
      xr_us_to_ticks((uint64_t)options.func_duration_threshold_us);
  xr_fdr_hot.max_event_size =
      cap > preamble + 2 * XR_FDR_META_SIZE
          ? (uint32_t)(cap - preamble - 2 * XR_FDR_META_SIZE)
          : 0;

  static bool hooks_registered;
  if (!hooks_registered) {
    hooks_registered = true;
    xr_thread_on_exit(thread_exit);
  }

  /* Open the gate (epoch becomes odd, a new value: threads holding state of
   * an older generation notice and start over), then install handlers. */
  advance_epoch(1);
  __xray_log_set_buffer_iterator(xr_fdr_iterator);
  /* Before the objects are told: a crash's trace needs names built ahead. */
  xr_fdr_crash_trace_prepare(outputs, triggers.on_crash);
  /* Function records keep 28 bits of id: the handlers take dense ids. */
  xr_objects_dense_recording("xray-fdr");
  install_handlers(true);
  xr_fdr_snapshot_prepare();
  if (xr_trace_outputs_streamed(outputs))
    xr_fdr_snaptrace_start(outputs); /* before the first snapshot is taken */
  xr_lifecycle_end_init(&xr_fdr_lifecycle, true);
  xr_fdr_triggers_install(&triggers);
  xr_report(XR_INFO,
            "xray-fdr: initialised: %d buffers of %d bytes%s, threshold %d "
            "us, format version %d",
            (int)options.buffer_max, (int)options.buffer_size,
            ahead ? " (faulted in ahead by a helper thread)" : "",
            (int)options.func_duration_threshold_us, version);
  return XRAY_LOG_INITIALIZED;
}

static XRayLogInitStatus fdr_finalize(void) {
  XRayLogInitStatus now;
  if (!xr_lifecycle_begin_finalize(&xr_fdr_lifecycle, &now))
    return now;
  /* Stop, then wait only for threads caught in the middle of an event. */
  stop_recording();
  xr_fdr_prefault_stop(); /* nothing will be written any more */
  uint32_t bound_ms = xr_quiesce_bound_ms(options.grace_period_ms);
  /* The caller may itself be inside a handler (a signal handler or an
   * instrumented function calling finalize): its own slot is not waited on. */
  struct xr_fdr_writer *self = xr_fdr_thread.writer;
  uintptr_t self_state =
      self ? __atomic_load_n(&self->state, __ATOMIC_RELAXED) : 0;
  if (self)
    __atomic_store_n(&self->state, self_state & ~XR_FDR_BUSY, __ATOMIC_RELAXED);
  queue_quiescent = xr_fdr_writers_quiesce((uint64_t)bound_ms * 1000000u);
  if (self)
    __atomic_store_n(&self->state, self_state, __ATOMIC_RELAXED);
  /* From here on no thread can take a buffer, and the file holds only
   * buffers whose writers have finished (see xr_fdr_queue_close). */
  size_t left_out = xr_fdr_queue_close(&xr_fdr_queue, self);
  if (!queue_quiescent)
    xr_report(XR_ERROR, "xray-fdr: a thread was still writing an event after "
              "%u ms (grace_period_ms); %zu buffer(s) left out of the log",
              (unsigned)bound_ms, left_out);
  xr_fdr_file_prepare((uint64_t)options.buffer_size);
  return xr_lifecycle_end_finalize(&xr_fdr_lifecycle);
}

/* Every call was erased by the threshold: the user gets a log without a
 * single function record and may not know why. Said once per flush; at
 * verbosity 0 only to a person (stderr is a terminal): xr_hint_level. */
static void report_all_calls_erased(void) {
  uint64_t erased = xr_fdr_writers_erased();
  if (erased == 0 || xr_fdr_file_has_function_record())
    return;
  xr_report(xr_hint_level(),
            "xray-fdr: all %llu function calls were shorter than "
            "func_duration_threshold_us=%d and were erased; the log has no "
            "function records (func_duration_threshold_us=0 keeps every "
            "call)",
            (unsigned long long)erased,
            (int)options.func_duration_threshold_us);
}

static XRayLogFlushStatus fdr_flush(void) {
  if (!xr_lifecycle_begin_flush(&xr_fdr_lifecycle))
    return XRAY_LOG_NOT_FLUSHING;
  /* Keep our own handlers from running if a signal arrives mid-flush. */
  uint8_t guard = xr_guard_enter();
  __xray_log_remove_buffer_iterator();
  /* The snapshots' trace helper ends (after the file it is on); what it had
   * not reached is converted here, the same way (fdr_snaptrace.c). */
  xr_fdr_snaptrace_stop();
  if (!options.no_file_flush)
    xr_fdr_file_write(outputs);
  if (xr_trace_outputs_streamed(outputs))
    xr_fdr_snaptrace_convert_new();
  report_all_calls_erased();
  uint64_t dropped = xr_fdr_writers_dropped();
  uint64_t nested = xr_fdr_writers_nested();
  uint64_t overwritten =
      __atomic_load_n(&xr_fdr_queue.overwritten, __ATOMIC_RELAXED);
  xr_report(XR_INFO,
            "xray-fdr: %llu events dropped (no free buffer or too large), "
            "%llu nested events dropped (inside the tracer, e.g. from a "
            "signal handler), %llu buffers overwritten (oldest data lost)",
            (unsigned long long)dropped, (unsigned long long)nested,
            (unsigned long long)overwritten);
  xr_guard_leave(guard);
  return xr_lifecycle_end_flush(&xr_fdr_lifecycle);
}

/* handle_arg0 for whoever calls it: the twin without the stack pointer. */
const struct XRayLogImpl xr_fdr_impl = {fdr_init, fdr_finalize,
                                        xr_fdr_handle_arg0_no_sp, fdr_flush};
