/* FDR slow-call trigger (snapshot_if_slower_than_us, snapshot_function):
 * a snapshot when a call of a watched function takes longer than the
 * threshold, written by that thread right after the call's exit record, at
 * most one per snapshot_min_interval_ms in the process.
 *
 * The watch handlers (fdr_controller_lean.c) come here only for the watched
 * functions' events, through xr_call_preserving_vectors, so this is
 * ordinary C. Each thread keeps a small stack of the watched calls it is
 * in (entry time and id); an exit pops to the newest frame of its id, so
 * frames left by longjmp or an exception go with it. */
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/base/test_points.h"
#include "core/clock/clock_lean.h"
#include "core/names/names.h"
#include "core/thread/thread.h"
#include "fdr/fdr_slow_call.h"
#include "fdr/fdr_snapshot.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_triggers.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

enum { WATCH_DEPTH = 64 };
struct watch_stack {
  uint32_t depth; /* may exceed WATCH_DEPTH: those frames are not timed */
  int32_t id[WATCH_DEPTH];
  uint64_t tsc[WATCH_DEPTH];
};
static XR_TLS struct watch_stack stack;

static uint64_t threshold_ticks;
static uint64_t min_interval_ns;
static uint64_t next_allowed_ns; /* atomic: earliest time of the next one */

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool all_digits(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

int xr_fdr_slow_call_prepare(const struct fdr_trigger_options *o,
                             const char *function) {
  xr_fdr_hot.watch_count = 0;
  if (o->slow_us == 0)
    return 0;
  if (!function[0]) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_if_slower_than_us needs "
                        "snapshot_function (a function id or name pattern)");
    return -1;
  }
  const struct xr_name_table *t = NULL;
  int st = xr_names_table(0, &t);
  size_t count = st == XR_NAMES_OK ? t->count : 0;
  long id = all_digits(function) ? strtol(function, NULL, 10) : 0;
  if (id > 0 && (size_t)id > count)
    count = (size_t)id; /* no name table: trust the id */
  if (count == 0) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_function=%s: no instrumented "
              "function is known", function);
    return -1;
  }
  /* Never unmapped: a watch handler of an earlier generation may still be
   * reading the previous set (one byte per function, once per init). */
  uint8_t *set = mmap(NULL, count, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (set == MAP_FAILED) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_function: no memory");
    return -1;
  }
  size_t matched;
  if (id > 0) {
    set[id - 1] = 1;
    matched = 1;
  } else if (st != XR_NAMES_OK) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_function=%s: no name table "
              "(use a function id)", function);
    munmap(set, count);
    return -1;
  } else {
    matched = xr_names_mark(t, function, set, 1, NULL);
  }
  if (matched == 0) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_function=%s matches no "
              "instrumented function", function);
    munmap(set, count);
    return -1;
  }
  threshold_ticks = xr_us_to_ticks((uint64_t)o->slow_us);
  min_interval_ns = (uint64_t)o->min_interval_ms * 1000000u;
  __atomic_store_n(&next_allowed_ns, 0, __ATOMIC_RELAXED);
  xr_fdr_hot.watch_set = set;
  xr_fdr_hot.watch_count = (uint32_t)count;
  xr_report(XR_INFO,
            "xray-fdr: a call slower than %d us of %zu function(s) "
            "matching '%s' takes a snapshot (at most one per %d ms)",
            (int)o->slow_us, matched, function, (int)o->min_interval_ms);
  return 0;
}

static void slow_call(int32_t id, uint64_t ticks) {
  uint64_t now = monotonic_ns();
  uint64_t next = __atomic_load_n(&next_allowed_ns, __ATOMIC_RELAXED);
  if (now < next ||
      !__atomic_compare_exchange_n(&next_allowed_ns, &next,
                                   now + min_interval_ns, false,
                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return; /* too soon after the last one, or another thread takes it */
  if (!xr_fdr_snapshot_trylock())
    return; /* a snapshot is being written: it holds this call too */
  struct xr_fdr_snapshot_why why = {XR_SNAP_SLOW_CALL, 0, id,
                                    xr_ticks_to_ns(ticks) / 1000u};
  xr_fdr_snapshot_write(&why, XR_SNAP_SLOT_NORMAL, NULL, 0);
  xr_fdr_snapshot_unlock();
  xr_fdr_snapshot_drain();
}

/* Test points (the unit test fdr_signal_window compiles this file again
 * with XR_TEST_POINTS to run a signal handler's events there); nothing
 * in the library. */
#ifdef XR_TEST_POINTS
void (*xr_fdr_test_watch_head)(void);
void (*xr_fdr_test_watch_tail)(void);
#endif

/* The guard of this path, as the full path's (enter_guard in
 * fdr_controller_lean.c): the writer's busy bit, then xr_in_handler; cleared
 * in the other order. A signal handler landing here finds busy set, so
 * both events of its call are dropped (the fast path checks only busy). With
 * xr_in_handler alone, its entry passed the fast path and its exit, sent to
 * the full path by a CPU change or a full buffer, was dropped: a split
 * pair, an exit made up by the log writer. False (nothing set) when the
 * thread is already inside the tracer: this event's watch is skipped, as
 * its record was dropped. */
static bool enter_watch(void) {
  struct xr_fdr_writer *w = xr_fdr_thread.writer;
  if (__atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED) ||
      (w != NULL && xr_fdr_writer_busy(w)))
    return false;
  if (w != NULL)
    (void)xr_fdr_writer_enter(w); /* clear: checked above */
  xr_compiler_barrier();
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  xr_compiler_barrier();
  return true;
}

static void leave_watch(void) {
  xr_compiler_barrier();
  __atomic_store_n(&xr_in_handler, 0, __ATOMIC_RELAXED);
  XR_TEST_POINT(xr_fdr_test_watch_tail, ());
  xr_compiler_barrier();
  struct xr_fdr_writer *w = xr_fdr_thread.writer;
  if (w != NULL) /* the cursor as it is: nothing was written here */
    __atomic_store_n(&w->state,
                     __atomic_load_n(&w->state, __ATOMIC_RELAXED) & ~XR_FDR_BUSY,
                     __ATOMIC_RELEASE);
}

void xr_fdr_watch_slow(void *arg) {
  const struct xr_fdr_watch_event *e = arg;
  /* A signal handler's watched calls, nested in this path, are not timed:
   * the stack is this thread's and is being changed. */
  if (!enter_watch())
    return;
  XR_TEST_POINT(xr_fdr_test_watch_head, ());
  uint64_t now = xr_now();
  struct watch_stack *s = &stack;
  int32_t slow_id = 0;
  uint64_t slow_ticks = 0;
  if (e->type == ENTRY) {
    if (s->depth < WATCH_DEPTH) {
      s->id[s->depth] = e->id;
      s->tsc[s->depth] = now;
    }
    s->depth++;
  } else if (s->depth > WATCH_DEPTH) {
    s->depth--; /* a frame too deep to be timed */
  } else {
    uint32_t d = s->depth;
    while (d > 0 && s->id[d - 1] != e->id)
      d--;
    if (d > 0) { /* else: entered before the watch began */
      s->depth = d - 1;
      uint64_t ticks = now - s->tsc[d - 1];
      if (ticks >= threshold_ticks && (int64_t)ticks > 0) {
        slow_id = e->id;
        slow_ticks = ticks;
      }
    }
  }
  leave_watch();
  /* The snapshot outside the guard, as one the program asks for: busy held
   * for as long as it is written would make a finalize meanwhile leave this
   * thread's buffer out. A signal handler's events meanwhile are recorded
   * (a snapshot it would trigger finds the snapshot lock taken). */
  if (slow_id != 0)
    slow_call(slow_id, slow_ticks);
}
