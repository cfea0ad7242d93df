/* xray-profiling mode glue: the XRayLogImpl, its state machine (as
 * compiler-rt's, xray-abi.md 3.5), the in-memory buffer iterator and the
 * files written at flush.
 *
 *   init:     UNINITIALIZED -> INITIALIZED; else returns the current state.
 *   finalize: INITIALIZED -> FINALIZING -> FINALIZED (threads stop
 *             recording, tries are collected and serialised); else returns
 *             the current state.
 *   flush:    FINALIZED -> writes the files (unless no_flush) -> UNINITIALIZED,
 *             returns FLUSHED; in any other state NOT_FLUSHING.
 * An initialised session is finalized and flushed at exit. */
#define _GNU_SOURCE
#include "core/clock.h"
#include "core/handlers.h"
#include "core/log_registry.h"
#include "core/output.h"
#include "core/report.h"
#include "core/symbols.h"
#include "core/thread.h"
#include "profiling/profile_blocks.h"
#include "profiling/profile_views.h"
#include "profiling/profiling_collector.h"
#include "profiling/profiling_options.h"
#include "xray/xray_interface.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

XR_HIDDEN void xr_prof_handle_arg0(int32_t id, XRayEntryType type);

static int state = XRAY_LOG_UNINITIALIZED;
static int flushing;
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

static int load_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }
static void set_state(int s) { __atomic_store_n(&state, s, __ATOMIC_RELEASE); }

/* Header first, then each block; nothing unless finalized. */
static XRayBuffer iterate(XRayBuffer prev) {
  XRayBuffer none = {NULL, 0};
  if (load_state() != XRAY_LOG_FINALIZED || profile == NULL)
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

static void at_exit(void) {
  if (load_state() == XRAY_LOG_INITIALIZED)
    prof_finalize();
  if (load_state() == XRAY_LOG_FINALIZED)
    prof_flush();
}

static XRayLogInitStatus prof_init(size_t buffer_size, size_t max_buffers,
                                   void *args, size_t args_size) {
  (void)buffer_size;
  (void)max_buffers;
  int expected = XRAY_LOG_UNINITIALIZED;
  if (!__atomic_compare_exchange_n(&state, &expected, XRAY_LOG_INITIALIZING,
                                   false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return (XRayLogInitStatus)expected;
  uint8_t was_in = __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  if (xr_profiling_flags_load(&flags, args, args_size, &outputs,
                              &folded_calls) != 0) {
    __atomic_store_n(&xr_in_handler, was_in, __ATOMIC_RELEASE);
    set_state(XRAY_LOG_UNINITIALIZED);
    return XRAY_LOG_UNINITIALIZED;
  }
  xr_clock_init();
  xr_prof_collector_setup();
  xr_prof_collector_reset();
  free_profile();
  xr_prof_trie_config = (struct xr_trie_config){
      .chunk_bytes = flags.per_thread_allocator_max,
      .stack_bytes = flags.stack_allocator_max,
      .max_depth = (uint32_t)flags.max_depth,
      .global_max_bytes = flags.global_allocator_max,
      .global_used = &global_used,
  };
  __atomic_store_n(&xr_prof_lost_events, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_prof_nested_drops, 0, __ATOMIC_RELAXED);
  if (++last_gen == 0 || last_gen == XR_PROF_NO_GEN)
    last_gen = 1;
  session_gen = last_gen;
  static int atexit_done;
  if (!atexit_done) {
    atexit_done = 1;
    atexit(at_exit);
  }
  __xray_log_set_buffer_iterator(iterate);
  set_state(XRAY_LOG_INITIALIZED);
  /* The configuration above is published by this release store; handlers
   * that see the new generation read it in their slow path after an
   * acquire load of the same variable. */
  __atomic_store_n(&xr_prof_active_gen, session_gen, __ATOMIC_RELEASE);
  xr_handler_install(XR_SLOT_ARG0, (void *)xr_prof_handle_arg0, XR_HANDLER_LEAN);
  __atomic_store_n(&xr_in_handler, was_in, __ATOMIC_RELEASE);
  return XRAY_LOG_INITIALIZED;
}

static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static XRayLogInitStatus prof_finalize(void) {
  int expected = XRAY_LOG_INITIALIZED;
  if (!__atomic_compare_exchange_n(&state, &expected, XRAY_LOG_FINALIZING,
                                   false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return (XRayLogInitStatus)expected;
  uint8_t was_in = __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  /* Threads see the session end at their next event; after the fence in
   * xr_prof_end_session, a thread found outside the handler is done with its
   * trie, and one inside is given up to about half a second to leave it
   * (xr_prof_collect) before it is skipped and counted. */
  xr_prof_end_session((unsigned)flags.grace_period_ms);
  struct xr_trie **got;
  trie_count = xr_prof_collect(session_gen, &got, &not_collected);
  tries = got;
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
  __atomic_store_n(&xr_in_handler, was_in, __ATOMIC_RELEASE);
  set_state(XRAY_LOG_FINALIZED);
  return XRAY_LOG_FINALIZED;
}

/* ---- files written at flush ------------------------------------------ */

static int fd_sink(void *ctx, const void *data, size_t n) {
  return xr_write_all(*(int *)ctx, data, n);
}

static uintptr_t function_address(int32_t id) {
  return __xray_function_address(id);
}

static struct xr_trie_losses total_losses(void) {
  struct xr_trie_losses l = {0, 0, 0};
  for (size_t i = 0; i < trie_count; i++) {
    l.no_memory += tries[i]->lost.no_memory;
    l.too_deep += tries[i]->lost.too_deep;
    l.unmatched_exit += tries[i]->lost.unmatched_exit;
  }
  l.no_memory += __atomic_load_n(&xr_prof_lost_events, __ATOMIC_RELAXED);
  return l;
}

static struct xr_trie *merge_all(void) {
  struct xr_trie_config c = {.chunk_bytes = 1 << 20,
                             .stack_bytes = 4096,
                             .max_depth = UINT32_MAX};
  struct xr_trie *m = xr_trie_create(&c);
  if (m == NULL)
    return NULL;
  for (size_t i = 0; i < trie_count; i++)
    if (xr_trie_merge(m, tries[i]) != 0) {
      xr_trie_destroy(m);
      return NULL;
    }
  return m;
}

static void write_view(const char *path, const char *suffix,
                       struct xr_trie *merged, struct xr_names *names) {
  char out[1100];
  int fd = xr_open_sibling_file(path, suffix, out, sizeof(out));
  if (fd < 0)
    return;
  static struct xr_text_out text; /* 16 KiB: not on the stack */
  xr_text_init(&text, fd_sink, &fd);
  int rc;
  if (strcmp(suffix, ".folded") == 0) {
    rc = xr_folded_write(merged, folded_calls ? XR_FOLDED_CALLS : XR_FOLDED_TIME,
                         xr_names_get, names, xr_ticks_to_ns, &text);
  } else {
    struct xr_report_info info = {
        .program = xr_program_name(),
        .pid = (uint64_t)xr_pid(),
        .threads = trie_count,
        .frequency_hz = xr_clock.frequency_hz,
        .lost = total_losses(),
        .lost_threads = not_collected,
        .top = (size_t)flags.report_top,
    };
    rc = xr_report_write(merged, &info, xr_names_get, names, xr_ticks_to_ns,
                         &text);
  }
  if (rc != 0)
    xr_report(XR_ERROR, "xray-profiling: writing '%s' failed: %s", out,
              strerror(errno));
  close(fd);
}

static void write_files(void) {
  char path[1024];
  int fd = xr_open_log_file(path, sizeof(path));
  if (fd < 0)
    return;
  if ((outputs & XR_PROF_OUT_XRAY) && profile != NULL &&
      xr_write_all(fd, profile, profile_size) != 0)
    xr_report(XR_ERROR, "xray-profiling: writing '%s' failed: %s", path,
              strerror(errno));
  close(fd);
  if (outputs & (XR_PROF_OUT_FOLDED | XR_PROF_OUT_REPORT)) {
    struct xr_trie *merged = merge_all();
    struct xr_names names;
    if (merged == NULL) {
      xr_report(XR_ERROR, "xray-profiling: no memory to merge the threads' "
                "profiles; folded/report not written");
    } else if (xr_names_build(&names, __xray_max_function_id(),
                              function_address, NULL,
                              xr_symbols_self_bias()) != 0) {
      xr_report(XR_ERROR, "xray-profiling: no memory for function names; "
                "folded/report not written");
    } else {
      if (outputs & XR_PROF_OUT_FOLDED)
        write_view(path, ".folded", merged, &names);
      if (outputs & XR_PROF_OUT_REPORT)
        write_view(path, ".txt", merged, &names);
      xr_names_free(&names);
    }
    xr_trie_destroy(merged);
  }
  /* The name was reserved for the siblings only. */
  if (!(outputs & XR_PROF_OUT_XRAY))
    unlink(path);
  struct xr_trie_losses l = total_losses();
  if (l.no_memory != 0 || l.too_deep != 0 || not_collected != 0)
    xr_report(XR_ERROR,
              "xray-profiling: not recorded: %llu call(s) for lack of memory "
              "(raise global_allocator_max), %llu call(s) deeper than "
              "max_depth/stack_allocator_max, %llu busy thread(s)",
              (unsigned long long)l.no_memory, (unsigned long long)l.too_deep,
              (unsigned long long)not_collected);
  xr_report(XR_INFO,
            "xray-profiling: %llu nested events dropped (instrumented code "
            "ran while the thread was inside the handler, e.g. in a signal "
            "handler)",
            (unsigned long long)__atomic_load_n(&xr_prof_nested_drops,
                                                __ATOMIC_RELAXED));
}

static XRayLogFlushStatus prof_flush(void) {
  if (load_state() != XRAY_LOG_FINALIZED ||
      __atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL) != 0)
    return XRAY_LOG_NOT_FLUSHING;
  uint8_t was_in = __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  if (!flags.no_flush)
    write_files();
  xr_handler_install(XR_SLOT_ARG0, NULL, XR_HANDLER_LEAN);
  __xray_log_remove_buffer_iterator();
  free_profile();
  xr_prof_collector_reset();
  set_state(XRAY_LOG_UNINITIALIZED);
  __atomic_store_n(&xr_in_handler, was_in, __ATOMIC_RELEASE);
  __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
  return XRAY_LOG_FLUSHED;
}

const struct XRayLogImpl xr_profiling_impl = {
    prof_init,
    prof_finalize,
    xr_prof_handle_arg0,
    prof_flush,
};
