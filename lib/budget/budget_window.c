/* Sampling windows (budget_window.h): the cold side. A window stores the
 * mode's handler where the wrapper (budget_sample_lean.c) calls it, opens
 * the open word, swaps the wrapper in, sleeps, swaps the mode's handler
 * back, closes the word, and reads and clears every thread's state under
 * core/thread/quiesce.h's protocol:
 *   1. open := 0 (seq_cst), after the swap back: no new event reaches the
 *      wrapper, and one still in it finds the word closed or is seen busy;
 *   2. xr_quiesce_fence (membarrier);
 *   3. per state: wait (bounded) while its busy byte reads 1; once it
 *      reads 0 (acquire) its counts are complete and its later events
 *      leave it alone, so it is read and cleared here.
 * A state still busy at the bound (its thread preempted inside the
 * wrapper) is skipped and marked stale: the next window drops what it
 * holds instead of counting it twice.
 * Only the arg0 slot is wrapped: the entry of an xray_log_args function
 * goes to the mode's arg1 handler when it has one (basic, FDR), uncounted;
 * its exit is counted, untimed. */
#include "budget/budget_window.h"
#include "budget/budget_sample_lean.h"

#include "core/base/heap_sort.h"
#include "core/base/mmap_array.h"
#include "core/base/report.h"
#include "core/base/test_points.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/dispatch/function_ids.h"
#include "core/dispatch/handlers.h"
#include "core/objects/objects.h"
#include "core/thread/lock.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"

#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#ifdef XR_TEST_POINTS
void (*xr_budget_test_window_open)(void);
#endif

static xr_lock window_lock; /* one window at a time */
static bool hooks_set;

static uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t monotonic_ns) {
  struct timespec ts = {(time_t)(monotonic_ns / 1000000000u), (long)(monotonic_ns % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

/* A state as a new window wants it: no counts, no open call. */
static void clear(struct xr_budget_thread *t) {
  for (uint32_t i = 0; i < t->used && i < XR_BUDGET_SLOTS_USED; i++)
    t->table[t->used_at[i]] = (struct xr_budget_count){0};
  t->used = t->depth = t->departed = 0;
  t->events = t->handler_ticks = t->untracked = t->events_at_departure = 0;
}

/* Every thread's counts, in one array to sort by id. */
struct counts {
  struct xr_budget_count *v;
  size_t n, capacity;
  uint64_t lost_events; /* counts the array had no room for */
};

static void collect(struct counts *all, const struct xr_budget_thread *t) {
  for (uint32_t i = 0; i < t->used; i++) {
    const struct xr_budget_count *c = &t->table[t->used_at[i]];
    void *v = xr_mmap_array_grow(all->v, &all->capacity, all->n, sizeof *c, 1024);
    if (v == NULL) {
      all->lost_events += c->entries + c->exits;
      continue;
    }
    all->v = v;
    all->v[all->n++] = *c;
  }
}

/* Step 3 for every state; `keep`: add its counts to *out and `all`. */
static void read_states(bool keep, struct xr_budget_window *out, struct counts *all) {
  uint64_t deadline = xr_quiesce_deadline((uint64_t)XR_QUIESCE_BOUND_DEFAULT_MS * 1000000u);
  struct xr_budget_thread *t = __atomic_load_n(&xr_budget_threads, __ATOMIC_ACQUIRE);
  for (; t != NULL; t = t->next) {
    unsigned steps = 0;
    bool idle = true;
    while (idle && __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE) != 0)
      idle = xr_quiesce_wait_step(&steps, deadline);
    uint64_t nested = __atomic_exchange_n(&t->nested, 0, __ATOMIC_RELAXED);
    if (!idle) {
      t->stale = 1;
      continue;
    }
    if (keep && !t->stale) {
      out->events += t->events + nested;
      out->handler_ticks += t->handler_ticks;
      out->untracked_events += t->untracked + nested;
      out->threads += t->departed + (t->events > t->events_at_departure ? 1 : 0);
      collect(all, t);
    }
    clear(t);
    t->stale = 0;
  }
}

static int by_id(const void *a, const void *b) {
  int32_t x = ((const struct xr_budget_count *)a)->id, y = ((const struct xr_budget_count *)b)->id;
  return (x > y) - (x < y);
}

/* One sample per function, the threads' counts summed; dense ids are
 * turned into packed ones first. */
static void report_samples(struct counts *all, bool dense,
                           void (*each)(const struct xr_budget_fn_sample *s, void *arg),
                           void *arg, struct xr_budget_window *out) {
  out->untracked_events += all->lost_events;
  xr_heap_sort(all->v, all->n, sizeof *all->v, by_id);
  for (size_t i = 0; i < all->n;) {
    int32_t id = all->v[i].id;
    struct xr_budget_fn_sample s = {0, 0, 0, 0, 0, 0};
    for (; i < all->n && all->v[i].id == id; i++) {
      s.entries += all->v[i].entries;
      s.exits += all->v[i].exits;
      s.timed += all->v[i].timed;
      s.timed_ticks += all->v[i].timed_ticks;
    }
    int32_t packed = dense ? xr_objects_packed_of_dense(id) : id;
    if (packed < 0) { /* its object went away meanwhile */
      out->untracked_events += s.entries + s.exits;
      continue;
    }
    s.object = xr_id_object(packed);
    s.function = xr_id_function(packed);
    each(&s, arg);
  }
}

static void say_unmapped(void) {
  static uint64_t said;
  uint64_t n = __atomic_load_n(&xr_budget_unmapped, __ATOMIC_RELAXED);
  if (n > said) {
    said = n;
    xr_report(XR_INFO,
              "xray-budget: %llu thread(s) got no sampling state (out of memory): their "
              "events are not counted",
              (unsigned long long)n);
  }
}

int xr_budget_window_run(uint64_t length_ns,
                         void (*each)(const struct xr_budget_fn_sample *s, void *arg), void *arg,
                         struct xr_budget_window *out) {
  *out = (struct xr_budget_window){0, 0, 0, 0, 0, 0};
  if (!__atomic_load_n(&hooks_set, __ATOMIC_ACQUIRE))
    (void)xr_budget_window_setup();
  xr_lock_take(&window_lock);
  struct xr_lean_handler mode;
  xr_handler_lean_now(XR_SLOT_ARG0, &mode);
  if (mode.fn == NULL || mode.fn == (void *)xr_budget_sample) {
    xr_lock_release(&window_lock);
    return XR_BUDGET_WINDOW_NO_HANDLER;
  }
  const struct xr_lean_handler wrapper = {(void *)xr_budget_sample,
                                          (void *)xr_budget_sample_no_sp, mode.flags};
  /* Before the swap (release), so the wrapper never calls a stale one. */
  __atomic_store_n(&xr_budget_inner_no_sp, mode.fn_no_sp, __ATOMIC_RELEASE);
  __atomic_store_n(&xr_budget_inner, mode.fn, __ATOMIC_RELEASE);
  __atomic_store_n(&xr_budget_open, 1, __ATOMIC_SEQ_CST);
  int rc = XR_BUDGET_WINDOW_CHANGED;
  uint64_t wall = 0, cpu = 0;
  if (xr_handler_swap_lean(XR_SLOT_ARG0, &mode, &wrapper)) {
    wall = clock_ns(CLOCK_MONOTONIC);
    cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    XR_TEST_POINT(xr_budget_test_window_open, ());
    sleep_until(wall + length_ns);
    /* Fails when the mode installed or removed a handler meanwhile (which
     * replaced the wrapper): what was counted may mix two handlers. */
    if (xr_handler_swap_lean(XR_SLOT_ARG0, &wrapper, &mode))
      rc = XR_BUDGET_WINDOW_OK;
    wall = clock_ns(CLOCK_MONOTONIC) - wall;
    cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  }
  __atomic_store_n(&xr_budget_open, 0, __ATOMIC_SEQ_CST);
  xr_quiesce_fence();
  struct counts all = {NULL, 0, 0, 0};
  read_states(rc == XR_BUDGET_WINDOW_OK, out, &all);
  if (rc == XR_BUDGET_WINDOW_OK) {
    out->wall_ns = wall;
    out->cpu_ns = cpu;
    report_samples(&all, (mode.flags & XR_HANDLER_DENSE) != 0, each, arg, out);
  } else {
    *out = (struct xr_budget_window){0, 0, 0, 0, 0, 0};
  }
  if (all.v != NULL)
    munmap(all.v, all.capacity * sizeof *all.v);
  say_unmapped();
  xr_lock_release(&window_lock);
  return rc;
}

/* The thread gives its state back; counts it kept stay for the window's
 * read, the next thread adds to them. Runs with the guard set, from the
 * thread itself, as one more event would (the busy byte around it). */
static void on_thread_exit(void) {
  struct xr_budget_thread *t = xr_budget_tls;
  xr_budget_tls = XR_BUDGET_GONE; /* its last destructors' events: passed on */
  if ((uintptr_t)t <= (uintptr_t)XR_BUDGET_GONE)
    return;
  __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&xr_budget_open, __ATOMIC_RELAXED) != 0) {
    if (t->events > t->events_at_departure) {
      t->departed++;
      t->events_at_departure = t->events;
    }
    t->depth = 0; /* else the window's read clears it */
  }
  __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&t->owned, 0, __ATOMIC_RELEASE);
}

/* Fork child: only the forking thread lives on, and no window runs here.
 * The mode's handler goes back in the slot if the wrapper was there; the
 * other threads' states are free and every count is the parent's. The
 * forking thread's own state stays its own, left alone (stale) if the fork
 * came from a signal handler inside the wrapper. */
static void on_fork_child(void) {
  xr_lock_after_fork(&window_lock);
  struct xr_lean_handler now;
  xr_handler_lean_now(XR_SLOT_ARG0, &now);
  if (now.fn == (void *)xr_budget_sample) {
    const struct xr_lean_handler mode = {__atomic_load_n(&xr_budget_inner, __ATOMIC_ACQUIRE),
                                         __atomic_load_n(&xr_budget_inner_no_sp, __ATOMIC_ACQUIRE),
                                         now.flags};
    (void)xr_handler_swap_lean(XR_SLOT_ARG0, &now, &mode);
  }
  __atomic_store_n(&xr_budget_open, 0, __ATOMIC_SEQ_CST);
  struct xr_budget_thread *self = xr_budget_tls;
  struct xr_budget_thread *t = __atomic_load_n(&xr_budget_threads, __ATOMIC_ACQUIRE);
  for (; t != NULL; t = t->next) {
    if (t == self && __atomic_load_n(&t->busy, __ATOMIC_RELAXED) != 0) {
      t->stale = 1;
      continue;
    }
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->nested, 0, __ATOMIC_RELAXED);
    clear(t);
    t->stale = 0;
    if (t != self)
      __atomic_store_n(&t->owned, 0, __ATOMIC_RELEASE);
  }
}

int xr_budget_window_setup(void) {
  xr_clock_init();
  xr_quiesce_setup();
  if (xr_thread_on_exit(on_thread_exit) != 0 || xr_thread_on_fork_child(on_fork_child) != 0)
    return -1;
  __atomic_store_n(&hooks_set, true, __ATOMIC_RELEASE);
  return 0;
}

/* The smallest of a few runs: the runs another thread or an interrupt
 * slowed down say nothing about the event's own cost. */
enum { CALIBRATION_RUNS = 5, CALIBRATION_EVENTS = 1 << 15 };

static double per_event(uint64_t with, uint64_t without) {
  return with > without ? (double)(with - without) / CALIBRATION_EVENTS : 0.0;
}

void xr_budget_calibrate(struct xr_budget_calibration *out) {
  xr_clock_init();
  xr_lock_take(&window_lock); /* not beside a window, nor a second calibration */
  uint64_t events = UINT64_MAX, bare = UINT64_MAX, wrapped = UINT64_MAX, plain = UINT64_MAX;
  uint64_t timed = UINT64_MAX;
  for (int r = 0; r < CALIBRATION_RUNS; r++) {
    uint64_t t0 = xr_now();
    xr_handler_probe_events(CALIBRATION_EVENTS);
    uint64_t t1 = xr_now();
    xr_handler_probe_bare(CALIBRATION_EVENTS);
    uint64_t t2 = xr_now();
    events = t1 - t0 < events ? t1 - t0 : events;
    bare = t2 - t1 < bare ? t2 - t1 : bare;
  }
  out->trampoline_ticks = per_event(events, bare);
  /* A private state: a window's states are the controller's to read. */
  struct xr_budget_thread *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  out->window_ticks = out->timer_ticks = 0.0;
  if (t != MAP_FAILED) {
    for (int r = 0; r < CALIBRATION_RUNS; r++) {
      t->handler_ticks = 0;
      uint64_t w = xr_budget_sample_loop(t, CALIBRATION_EVENTS, true);
      /* The handler here returns at once: all it was timed at is the timing. */
      timed = t->handler_ticks < timed ? t->handler_ticks : timed;
      uint64_t p = xr_budget_sample_loop(t, CALIBRATION_EVENTS, false);
      wrapped = w < wrapped ? w : wrapped;
      plain = p < plain ? p : plain;
    }
    munmap(t, sizeof *t);
    out->window_ticks = per_event(wrapped, plain);
    out->timer_ticks = per_event(timed, 0);
  } else {
    xr_report(XR_INFO, "xray-budget: no memory to measure the sampling wrapper's cost: "
                       "taken as 0");
  }
  out->ticks_per_ns = (double)xr_clock.frequency_hz / 1e9;
  xr_lock_release(&window_lock);
}
