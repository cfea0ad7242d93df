/* xray-profiling mode glue: the XRayLogImpl, the in-memory buffer iterator
 * and the files written at flush.
 *
 * States: core's one lifecycle (core/modes/mode_lifecycle.h: the transitions,
 * what a call in the wrong state returns, the memory ordering). Finalize
 * stops the threads recording, collects their tries and serialises them;
 * flush writes the files (unless no_flush). An initialised session is
 * finalized and flushed at exit (core's exit policy, log_registry.c). */
#define _GNU_SOURCE
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/dispatch/handlers.h"
#include "core/modes/log_registry.h"
#include "core/modes/mode_lifecycle.h"
#include "core/modes/mode_stats.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"
#include "profiling/profile_blocks.h"
#include "profiling/profile_outputs.h"
#include "profiling/profiling_collector.h"
#include "profiling/profiling_lean.h"
#include "profiling/profiling_options.h"
#include "xray/xray_interface.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct xr_lifecycle xr_profiling_lifecycle = XR_LIFECYCLE_INITIAL;
static uint32_t last_gen;
static uint64_t global_used; /* bytes of trie chunks, all threads */

/* Set by init, read by finalize/flush (same session). */
static struct xr_profiling_flags flags;
static unsigned outputs;
static bool folded_calls;
static uint32_t session_gen;

/* Finalize's result. */
static char *profile;       /* header + blocks, mmap'd */
static size_t profile_size; /* bytes used */
static size_t profile_map;  /* bytes mapped */
static struct xr_trie **tries;
static size_t trie_count;
static uint64_t not_collected;
static uint64_t start_ns, end_ns; /* CLOCK_REALTIME at init and finalize */

/* Header first, then each block; nothing unless finalized. */
static XRayBuffer iterate(XRayBuffer prev) {
  XRayBuffer none = {NULL, 0};
  if (xr_lifecycle_status(&xr_profiling_lifecycle) != XRAY_LOG_FINALIZED || profile == NULL)
    return none;
  if (prev.Data == NULL)
    return (XRayBuffer){profile, XR_PROFILE_HEADER_BYTES};
  const char *next = (const char *)prev.Data + prev.Size;
  if (next < profile || next + XR_PROFILE_BLOCK_HEADER_BYTES > profile + profile_size)
    return none;
  uint32_t size;
  memcpy(&size, next, 4);
  if (size < XR_PROFILE_BLOCK_HEADER_BYTES || size > (size_t)(profile + profile_size - next))
    return none;
  return (XRayBuffer){next, size};
}

static void free_profile(void) {
  if (profile != NULL)
    munmap(profile, profile_map);
  profile = NULL;
  profile_size = profile_map = 0;
  tries = NULL;
  trie_count = 0;
}

static XRayLogFlushStatus prof_flush(void);
static XRayLogInitStatus prof_finalize(void);

/* Fork child: when another thread was initialising, finalizing or flushing,
 * the child's mode is UNINITIALIZED (core/modes/mode_lifecycle.h) and records
 * nothing; the profile being made is the parent's, forgotten here (left
 * mapped: the parent's copy-on-write pages) so no later init or flush of
 * the child frees or writes half of it. */
static void on_fork_child(void) {
  if (xr_lifecycle_after_fork(&xr_profiling_lifecycle) == XR_NO_TRANSITION)
    return;
  __atomic_store_n(&xr_prof_active_gen, 0, __ATOMIC_SEQ_CST);
  xr_handler_remove_lean_if(XR_SLOT_ARG0, (void *)xr_prof_handle_arg0);
  profile = NULL;
  profile_size = profile_map = 0;
  tries = NULL;
  trie_count = 0;
}

static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static XRayLogInitStatus prof_init(size_t buffer_size, size_t max_buffers,
                                   void *args, size_t args_size) {
  (void)buffer_size;
  (void)max_buffers;
  XRayLogInitStatus now;
  /* Before any transition: a fork in the middle of the first one must find
   * the hook (core/modes/mode_lifecycle.h). Idempotent. */
  static int no_fork_hook;
  if (xr_thread_on_fork_child(on_fork_child) != 0)
    xr_report_once(&no_fork_hook, XR_ERROR, "xray-profiling: no fork hook "
                   "left; a fork child may write its parent's profile again");
  if (!xr_lifecycle_begin_init(&xr_profiling_lifecycle, &now))
    return now;
  uint8_t was_in = xr_guard_enter();
  if (xr_profiling_flags_load(&flags, args, args_size, &outputs,
                              &folded_calls) != 0) {
    xr_guard_leave(was_in);
    return xr_lifecycle_end_init(&xr_profiling_lifecycle, false);
  }
  xr_clock_init();
  xr_prof_collector_setup(xr_prof_lean_grow);
  xr_prof_collector_reset();
  free_profile();
  xr_prof_set_trie_config(&(struct xr_trie_config){
      .chunk_bytes = flags.per_thread_allocator_max,
      .stack_bytes = flags.stack_allocator_max,
      .max_depth = (uint32_t)flags.max_depth,
      .global_max_bytes = flags.global_allocator_max,
      .global_used = &global_used,
  });
  __atomic_store_n(&xr_prof_lost_events, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_prof_nested_drops, 0, __ATOMIC_RELAXED);
  if (++last_gen == 0 || last_gen == XR_PROF_NO_GEN)
    last_gen = 1;
  session_gen = last_gen;
  start_ns = realtime_ns();
  __xray_log_set_buffer_iterator(iterate);
  xr_registry_flush_at_exit(&xr_profiling_impl);
  xr_lifecycle_end_init(&xr_profiling_lifecycle, true);
  /* The configuration above is published by this release store; handlers
   * that see the new generation read it in their slow path after an
   * acquire load of the same variable. */
  __atomic_store_n(&xr_prof_active_gen, session_gen, __ATOMIC_RELEASE);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)xr_prof_handle_arg0,
                          (void *)xr_prof_handle_arg0_no_sp, 0);
  xr_guard_leave(was_in);
  return XRAY_LOG_INITIALIZED;
}

static void build_blocks(void) {
  size_t size = xr_profile_size(tries, trie_count, XR_PROFILE_DEFAULT_MAX_BLOCK);
  profile_map = size;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    struct xr_profile_header_info info = {realtime_ns(), (uint64_t)xr_pid()};
    profile = p;
    profile_size = xr_profile_write(p, size, tries, trie_count,
                                    XR_PROFILE_DEFAULT_MAX_BLOCK, &info);
  } else {
    xr_report(XR_ERROR, "xray-profiling: no memory for the %zu-byte profile",
              size);
    profile_map = 0;
  }
}

static XRayLogInitStatus prof_finalize(void) {
  XRayLogInitStatus now;
  if (!xr_lifecycle_begin_finalize(&xr_profiling_lifecycle, &now))
    return now;
  uint8_t was_in = xr_guard_enter();
  /* Threads see the session end at their next event; after the fence in
   * xr_prof_end_session, a thread found outside the handler is done with its
   * trie, and one inside is given up to the quiesce bound to leave it
   * (xr_prof_collect) before it is skipped and counted. */
  xr_prof_end_session();
  uint64_t bound_ns = (uint64_t)xr_quiesce_bound_ms(flags.grace_period_ms) * 1000000u;
  struct xr_trie **got;
  trie_count = xr_prof_collect(session_gen, bound_ns, &got, &not_collected);
  tries = got;
  end_ns = realtime_ns();
  /* The blocks are compiler-rt's result: built when the xray file is asked
   * for, or when no_flush leaves the data to the buffer iterator. The
   * readable outputs never need them (a 10 000-deep recursion makes 200 MB
   * of blocks). */
  if ((outputs & XR_PROF_OUT_XRAY) || flags.no_flush)
    build_blocks();
  xr_guard_leave(was_in);
  return xr_lifecycle_end_finalize(&xr_profiling_lifecycle);
}

/* ---- files written at flush ------------------------------------------ */

static void write_files(void) {
  struct xr_prof_run run = {
      .outputs = outputs,
      .folded_calls = folded_calls,
      .fold_recursion = flags.fold_recursion,
      .report_top = flags.report_top,
      .tries = tries,
      .trie_count = trie_count,
      .not_collected = not_collected,
      .lost_events = __atomic_load_n(&xr_prof_lost_events, __ATOMIC_RELAXED),
      .blocks = profile,
      .blocks_size = profile_size,
      .start_ns = start_ns,
      .end_ns = end_ns,
  };
  xr_prof_write_outputs(&run);
  xr_report(XR_INFO,
            "xray-profiling: %llu nested events dropped (instrumented code "
            "ran while the thread was inside the handler, e.g. in a signal "
            "handler)",
            (unsigned long long)__atomic_load_n(&xr_prof_nested_drops,
                                                __ATOMIC_RELAXED));
}

static XRayLogFlushStatus prof_flush(void) {
  if (!xr_lifecycle_begin_flush(&xr_profiling_lifecycle))
    return XRAY_LOG_NOT_FLUSHING;
  uint8_t was_in = xr_guard_enter();
  if (!flags.no_flush)
    write_files();
  xr_handler_install(XR_SLOT_ARG0, NULL, XR_HANDLER_LEAN);
  __xray_log_remove_buffer_iterator();
  free_profile();
  xr_prof_collector_reset();
  XRayLogFlushStatus done = xr_lifecycle_end_flush(&xr_profiling_lifecycle);
  xr_guard_leave(was_in);
  return done;
}

/* handle_arg0 for whoever calls it: the twin without the stack pointer. */
const struct XRayLogImpl xr_profiling_impl = {
    prof_init,
    prof_finalize,
    xr_prof_handle_arg0_no_sp,
    prof_flush,
};

/* For `xrayctl status`. Recorded: unknown while threads run (their tries'
 * counts are written without atomics). Dropped: events lost for want of
 * trie memory plus those nested inside the handler, since init (both
 * counters are atomic). */
void xr_profiling_stats(struct xr_mode_stats *out) {
  *out = (struct xr_mode_stats){
      .dropped_known = true,
      .dropped = __atomic_load_n(&xr_prof_lost_events, __ATOMIC_RELAXED) +
                 __atomic_load_n(&xr_prof_nested_drops, __ATOMIC_RELAXED)};
}
