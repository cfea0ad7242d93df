/* Basic mode glue: the XRayLogImpl "xray-basic" and its transitions, the
 * registry of recording threads and the hooks (thread exit, fork, exit).
 *
 * States: core's one lifecycle (core/modes/mode_lifecycle.h: the transitions,
 * what a call in the wrong state returns, the memory ordering); a later
 * init starts a new generation and a new file. Finalize stops recording at
 * once; flush writes every registered thread's pending records (the
 * caller's included), closes the file and reports statistics at verbosity
 * >= 1. At exit an initialised mode is finalized and flushed, however it
 * was started (core's exit policy, log_registry.c).
 *
 * Locks, always taken in this order: threads_lock (the list of registered
 * threads), the writer's lock. The hot path takes neither except the
 * writer's, when a buffer is full. */
#include "basic/basic_args.h"
#include "basic/basic_export.h"
#include "basic/basic_log_lean.h"
#include "basic/basic_options.h"
#include "basic/basic_records.h"
#include "basic/basic_thread.h"
#include "basic/basic_writer.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/dispatch/handlers.h"
#include "core/modes/budget_hooks.h"
#include "core/modes/log_registry.h"
#include "core/modes/mode_lifecycle.h"
#include "core/modes/mode_stats.h"
#include "core/names/object_map.h"
#include "core/objects/objects.h"
#include "core/thread/lock.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"
#include "export/thread_names.h"
#include "export/trace_formats.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Frames tracked beyond max_stack_depth, so that an exit skipped by longjmp
 * below the depth limit can still be matched to its frame. */
#define XR_BASIC_EXTRA_FRAMES 4096u

static xr_lock threads_lock;
struct xr_lifecycle xr_basic_lifecycle = XR_LIFECYCLE_INITIAL;
static uint32_t generation;
static struct xr_basic_options options;
static uint64_t threshold_ticks;
static unsigned outputs; /* XR_TRACE_OUT_* of options.trace_output */
static struct xr_thread_list threads; /* registered, under threads_lock */
static bool hooks_registered;

/* Statistics of threads that exited since init, under threads_lock. */
static struct {
  uint64_t dropped_nested, unmatched_exits, unwound, erased, open_at_end;
} gone;
/* Events the last finalize counted as dropped (the counters above are
 * zeroed there), for xr_basic_stats; under threads_lock. */
static uint64_t dropped_at_finalize;

/* ---- threads --------------------------------------------------------- */

/* Prefaulted (MAP_POPULATE) when asked: a page fault inside a timed call
 * would make a tiny call look long enough to keep. */
static void *map_zeroed(size_t bytes, bool populate) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0),
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void unmap_buffers(struct xr_basic_thread *t) {
  if (t->buf != NULL)
    munmap(t->buf, t->buf_bytes);
  if (t->frames != NULL)
    munmap(t->frames, t->frames_bytes);
  t->buf = NULL;
  t->frames = NULL;
  t->capacity = 0;
  t->frame_capacity = 0;
}

/* xr_basic_prepare_slow: sets up (or refuses) the calling thread for the
 * recording generation p->epoch; called with xr_in_handler and t->busy set.
 * Sets p->ok when t may record. */
static void prepare_cb(void *arg) {
  static int mmap_failed_once;
  struct xr_basic_prepare *p = arg;
  struct xr_basic_thread *t = p->t;
  if (!t->link.registered) {
    xr_lock_take(&threads_lock);
    /* Checked under the lock a flusher holds while it walks the list: a
     * thread registered here is either seen by that flusher or sees the
     * stopped epoch. */
    bool recording =
        __atomic_load_n(&xr_basic_epoch, __ATOMIC_ACQUIRE) == p->epoch;
    if (recording)
      xr_thread_list_add(&threads, &t->link);
    xr_lock_release(&threads_lock);
    if (!recording)
      return;
    xr_thread_arm();
  }
  uint32_t capacity = (uint32_t)options.thread_buffer_size;
  uint32_t frames = (uint32_t)options.max_stack_depth + XR_BASIC_EXTRA_FRAMES;
  if (t->buf == NULL || t->capacity != capacity ||
      t->frame_capacity != frames) {
    unmap_buffers(t);
    t->buf_bytes = (size_t)capacity * sizeof(struct xr_basic_record);
    t->frames_bytes = (size_t)frames * sizeof(struct xr_basic_frame);
    t->buf = map_zeroed(t->buf_bytes, true);
    t->frames = map_zeroed(t->frames_bytes, false);
    if (t->buf == NULL || t->frames == NULL) {
      unmap_buffers(t);
      t->exited = 1; /* never try again on this thread */
      xr_report_once(&mmap_failed_once, XR_ERROR,
                     "basic mode: cannot map %zu bytes for a thread buffer; "
                     "that thread is not recorded", t->buf_bytes);
      return;
    }
    t->capacity = capacity;
    t->frame_capacity = frames;
    /* Fault in the frames in use below the depth limit (the rest, used
     * only past it, fault in if ever needed). */
    for (uint32_t i = 0; i < frames && i <= (uint32_t)options.max_stack_depth; i += 64)
      ((volatile struct xr_basic_frame *)t->frames)[i].fid = 0;
  }
  t->used = 0;
  t->spilled = 0;
  t->depth = 0;
  t->max_depth = (uint32_t)options.max_stack_depth;
  t->threshold_ticks = threshold_ticks;
  t->ids = xr_basic_ids(xr_tid(), xr_pid());
  t->spill = xr_basic_spill_lean;
  t->epoch = p->epoch;
  p->ok = true;
}

/* xr_basic_spill_slow: writes t's buffered records out and empties the
 * buffer (even on failure). */
static void spill_cb(void *arg) {
  struct xr_basic_thread *t = arg;
  if (t->used > 0)
    xr_basic_writer_append(t->buf, t->used); /* failure: it stops recording */
  t->spilled += t->used;
  t->used = 0;
}

/* Calls of t whose entries are in the log and whose exits are not (yet). */
static uint64_t open_calls(const struct xr_basic_thread *t) {
  uint32_t tracked = t->depth < t->frame_capacity ? t->depth : t->frame_capacity;
  uint64_t n = 0;
  for (uint32_t i = 0; i < tracked; i++)
    n += t->frames[i].recorded;
  return n;
}

/* Thread exit (run by core with xr_in_handler set): write what is left. */
static void on_thread_exit(void) {
  struct xr_basic_thread *t = &xr_basic_tls;
  if (!t->link.registered)
    return;
  t->exited = 1; /* events after this (other destructors) are dropped */
  t->epoch = 0;
  if (xr_trace_outputs_streamed(outputs))
    xr_thread_names_remember(); /* for the trace files' thread names */
  xr_lock_take(&threads_lock);
  spill_cb(t);
  gone.dropped_nested += t->dropped_nested;
  gone.unmatched_exits += t->unmatched_exits;
  gone.unwound += t->unwound;
  gone.erased += t->erased;
  gone.open_at_end += open_calls(t);
  xr_thread_list_remove(&threads, &t->link);
  xr_lock_release(&threads_lock);
  unmap_buffers(t);
}

static void stop_recording(void) {
  xr_basic_args_stop(); /* before the quiesce: flush's covers its calls */
  xr_basic_stop_recording();
  xr_handler_remove_lean_if(XR_SLOT_ARG0, (void *)xr_basic_handle_arg0);
  xr_handler_remove_lean_if(XR_SLOT_ARG1, (void *)xr_basic_handle_arg1);
}

/* Fork child: only the forking thread lives on. Its buffered records belong
 * to the parent (which writes them); the calls on its stack were entered in
 * the parent, so their exits are not written here either. The child appends
 * its own records, with its own pid, to the parent's file (basic_writer.c
 * says why appends of the two never tear each other's records). When
 * another thread was initialising, finalizing or flushing, the child's
 * mode is UNINITIALIZED (core/modes/mode_lifecycle.h): it records nothing and
 * lets go of the file, which is the parent's to finish. */
static void on_fork_child(void) {
  xr_lock_after_fork(&threads_lock);
  xr_basic_writer_after_fork();
  if (xr_lifecycle_after_fork(&xr_basic_lifecycle) != XR_NO_TRANSITION) {
    stop_recording();
    xr_basic_writer_forget();
  }
  xr_thread_names_after_fork(); /* an exiting thread may have held it */
  gone.dropped_nested = gone.unmatched_exits = gone.unwound = gone.erased = 0;
  gone.open_at_end = 0;
  struct xr_basic_thread *t = &xr_basic_tls;
  xr_thread_list_after_fork(&threads, &t->link);
  if (!t->link.registered)
    return;
  t->used = 0;
  t->spilled = 0;
  uint32_t tracked = t->depth < t->frame_capacity ? t->depth : t->frame_capacity;
  for (uint32_t i = 0; i < tracked; i++)
    t->frames[i].recorded = 0;
  t->ids = xr_basic_ids(xr_tid(), xr_pid());
  t->dropped_nested = t->unmatched_exits = t->unwound = t->erased = 0;
}

/* ---- the mode ---------------------------------------------------------- */

static XRayLogInitStatus basic_finalize(void);
static XRayLogFlushStatus basic_flush(void);

static void register_hooks_once(void) {
  if (hooks_registered)
    return;
  hooks_registered = true;
  xr_basic_prepare_slow = prepare_cb;
  xr_basic_spill_slow = spill_cb;
  if (xr_thread_on_exit(on_thread_exit) != 0)
    xr_report(XR_ERROR, "basic mode: no thread-exit hook left; records of "
              "threads that exit before the flush may be lost");
  pthread_atfork(xr_basic_writer_before_fork, NULL, NULL);
  xr_quiesce_setup();
}

static XRayLogInitStatus basic_init(size_t buffer_size, size_t max_buffers,
                                    void *config, size_t config_size) {
  (void)buffer_size;
  (void)max_buffers;
  XRayLogInitStatus now;
  /* Before any transition: a fork in the middle of the first one must find
   * the hook (core/modes/mode_lifecycle.h). Idempotent. */
  static int no_fork_hook;
  if (xr_thread_on_fork_child(on_fork_child) != 0)
    xr_report_once(&no_fork_hook, XR_ERROR, "basic mode: no fork hook left; "
                   "a child may write its parent's records again");
  if (!xr_lifecycle_begin_init(&xr_basic_lifecycle, &now)) {
    xr_report(XR_INFO, "basic mode: already initialized (state %d); "
              "finalize and flush before initializing again", (int)now);
    return now;
  }
  int bad = xr_basic_options_load(&options, config, config_size);
  outputs = xr_trace_outputs_parse(options.trace_output);
  if (outputs == 0) {
    xr_report(XR_ERROR, "basic mode: trace_output=%s is not a list of %s",
              options.trace_output, xr_trace_outputs_words());
    bad++;
  }
  if (bad != 0) {
    xr_report(XR_ERROR, "basic mode: bad configuration; not initialised");
    return xr_lifecycle_end_init(&xr_basic_lifecycle, false);
  }
  xr_clock_init();
  threshold_ticks = xr_us_to_ticks((uint64_t)options.func_duration_threshold_us);
  if (options.func_duration_threshold_us == 0)
    threshold_ticks = 0;
  register_hooks_once();
  xr_registry_flush_at_exit(&xr_basic_impl);
  xr_basic_writer_reset();
  uint8_t was = xr_thread_list_lock(&threads_lock);
  dropped_at_finalize = 0;
  xr_thread_list_unlock(&threads_lock, was);
  generation++;
  uint32_t epoch = generation * 2;
  if (epoch == 0)
    epoch = generation = 2; /* wrapped: 0 means "never set up" */
  __atomic_store_n(&xr_basic_epoch, epoch, __ATOMIC_SEQ_CST);
  /* As compiler-rt: basic mode records no custom or typed events. */
  xr_handler_install(XR_SLOT_CUSTOM, NULL, 0);
  xr_handler_install(XR_SLOT_TYPED, NULL, 0);
  xr_handler_install_lean(XR_SLOT_ARG1, (void *)xr_basic_handle_arg1,
                          (void *)xr_basic_handle_arg1_no_sp, 0);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)xr_basic_handle_arg0,
                          (void *)xr_basic_handle_arg0_no_sp, 0);
  /* Values argument capture takes come with their events (basic_args.c). */
  xr_basic_args_start();
  /* The file now, as compiler-rt does ("Log file in" at verbosity >= 1):
   * whether a file is created never depends on how long the first calls
   * take. Removed at flush if it is left without a record. Opened before
   * INITIALIZED lets a finalize and flush in. */
  xr_basic_writer_open();
  xr_lifecycle_end_init(&xr_basic_lifecycle, true);
  xr_report(XR_INFO, "basic mode: recording (func_duration_threshold_us=%d "
            "max_stack_depth=%d thread_buffer_size=%d, clock %s)",
            (int)options.func_duration_threshold_us,
            (int)options.max_stack_depth, (int)options.thread_buffer_size,
            xr_clock.source ? xr_clock.source : "?");
  return XRAY_LOG_INITIALIZED;
}

static XRayLogInitStatus basic_finalize(void) {
  XRayLogInitStatus now;
  if (!xr_lifecycle_begin_finalize(&xr_basic_lifecycle, &now))
    return now;
  stop_recording();
  return xr_lifecycle_end_finalize(&xr_basic_lifecycle);
}

/* Waits (bounded) until t is outside the handler: step c. of
 * core/thread/quiesce.h's protocol, t->busy being the guard. */
static bool wait_idle(struct xr_basic_thread *t, uint64_t deadline_ns) {
  unsigned steps = 0;
  while (__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE))
    if (!xr_quiesce_wait_step(&steps, deadline_ns))
      return false;
  return true;
}

/* The user asked for a trace and gets none because every call was shorter
 * than the threshold (default 5 us): say so once per process, with the
 * option to change, as the core's hints do (to a terminal at verbosity 0,
 * always at verbosity >= 1). */
static void say_if_all_erased(uint64_t erased) {
  static int once;
  if (erased == 0 || xr_basic_writer_records() != 0)
    return;
  xr_report_once(&once, xr_hint_level(),
                 "basic mode: no log written: all %llu call(s) took less than "
                 "func_duration_threshold_us=%d and were filtered out; set "
                 "XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 to keep "
                 "every call",
                 (unsigned long long)erased,
                 (int)options.func_duration_threshold_us);
}

static XRayLogFlushStatus basic_flush(void) {
  if (!xr_lifecycle_begin_flush(&xr_basic_lifecycle))
    return XRAY_LOG_NOT_FLUSHING;
  /* Inside the tracer while it flushes: a signal handler's events
   * are dropped, and its _exit skips the exit flush (exit_hook.c), which
   * would wait for them. */
  uint8_t guard = xr_guard_enter();
  xr_quiesce_fence(); /* the epoch was stopped at finalize */
  uint32_t bound_ms = xr_quiesce_bound_ms(options.grace_period_ms);
  uint64_t deadline = xr_quiesce_deadline((uint64_t)bound_ms * 1000000u);
  uint64_t dropped = 0, unmatched = 0, unwound = 0, erased = 0, open = 0, stuck = 0;
  xr_lock_take(&threads_lock);
  for (struct xr_thread_link *l = threads.head; l != NULL; l = l->next) {
    struct xr_basic_thread *t = xr_thread_entry(l, struct xr_basic_thread, link);
    if (!wait_idle(t, deadline)) {
      stuck++; /* e.g. stopped in a signal handler: leave its buffer */
      continue;
    }
    spill_cb(t);
    dropped += __atomic_exchange_n(&t->dropped_nested, 0, __ATOMIC_RELAXED);
    unmatched += t->unmatched_exits;
    unwound += t->unwound;
    erased += t->erased;
    open += open_calls(t);
    t->unmatched_exits = t->unwound = t->erased = 0;
  }
  dropped += gone.dropped_nested;
  unmatched += gone.unmatched_exits;
  unwound += gone.unwound;
  erased += gone.erased;
  open += gone.open_at_end;
  gone.dropped_nested = gone.unmatched_exits = gone.unwound = gone.erased = 0;
  gone.open_at_end = 0;
  dropped_at_finalize = dropped;
  xr_lock_release(&threads_lock);
  xr_basic_writer_close();
  const char *path = xr_basic_writer_path();
  xr_report(XR_INFO, "basic mode: wrote %llu records to %s",
            (unsigned long long)xr_basic_writer_records(),
            path[0] ? path : "(no file: nothing recorded)");
  if (path[0] != '\0' && xr_trace_outputs_streamed(outputs)) {
    const struct xr_trace_drop drops[] = {
        {"nested events (inside the tracer)", dropped},
        {"exits without entries", unmatched}};
    xr_basic_write_streams(path, outputs, drops, XR_ARRAY_SIZE(drops));
  }
  if (path[0] != '\0' && (outputs & XR_TRACE_OUT_XRAY))
    xr_object_map_write(path, false); /* only when shared objects registered */
  if (path[0] != '\0' && xr_budget_write_culled)
    xr_budget_write_culled(path); /* only when the budget ran */
  if (path[0] != '\0' && !(outputs & XR_TRACE_OUT_XRAY))
    unlink(path); /* only the trace files were asked for */
  xr_report(XR_INFO, "basic mode: %llu nested events dropped, %llu exits "
            "without entries, %llu calls closed by unwinding, %llu calls open "
            "at the end",
            (unsigned long long)dropped, (unsigned long long)unmatched,
            (unsigned long long)unwound, (unsigned long long)open);
  say_if_all_erased(erased);
  if (stuck > 0)
    xr_report(XR_ERROR, "basic mode: %llu thread(s) still inside the handler "
              "after %u ms (grace_period_ms); their buffers were not written",
              (unsigned long long)stuck, (unsigned)bound_ms);
  XRayLogFlushStatus done = xr_lifecycle_end_flush(&xr_basic_lifecycle);
  xr_guard_leave(guard);
  return done;
}

/* handle_arg0 for whoever calls it (the handler the mode installs is
 * the one the trampolines pass the stack pointer to). */
const struct XRayLogImpl xr_basic_impl = {basic_init, basic_finalize,
                                          xr_basic_handle_arg0_no_sp, basic_flush};

/* For `xrayctl status`. Recorded: records this process wrote to the
 * current log (a thread's buffered records count once it hands them over:
 * buffer full, thread exit, flush). Dropped: events the re-entrancy guard
 * dropped since init (relaxed loads of each thread's counter, which only
 * its owner writes). */
void xr_basic_stats(struct xr_mode_stats *out) {
  uint8_t was = xr_thread_list_lock(&threads_lock);
  uint64_t dropped = dropped_at_finalize + gone.dropped_nested;
  for (struct xr_thread_link *l = threads.head; l != NULL; l = l->next) {
    struct xr_basic_thread *t = xr_thread_entry(l, struct xr_basic_thread, link);
    dropped += __atomic_load_n(&t->dropped_nested, __ATOMIC_RELAXED);
  }
  xr_thread_list_unlock(&threads_lock, was);
  *out = (struct xr_mode_stats){.recorded_known = true,
                                .recorded = xr_basic_writer_records_locked(),
                                .dropped_known = true,
                                .dropped = dropped};
}
