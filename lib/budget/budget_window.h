/* Sampling windows: the budget's only per-event work (budget_window.c, with
 * the lean wrapper in budget_sample_lean.c).
 *
 * Between windows nothing of the budget runs per event: the mode's own lean
 * handler is in the arg0 slot. A window swaps in a wrapper around that
 * handler (core/dispatch/handlers.h, xr_handler_swap_lean) for length_ns;
 * the wrapper counts each event per function in a per-thread table, times
 * the mode's handler (two clock reads around it) and keeps a small shadow
 * stack per thread to time calls whose entry and exit both fall in the
 * window. Then the mode's handler is swapped back, the wrappers still in
 * flight are waited for (the quiesce protocol, core/thread/quiesce.h), and
 * the tables are read and cleared. */
#ifndef XR_BUDGET_WINDOW_H
#define XR_BUDGET_WINDOW_H

#include "core/base/common.h"

/* One function's events in a window (all threads summed). */
struct xr_budget_fn_sample {
  int32_t object;       /* registry object id */
  int32_t function;     /* function id within the object, 1-based */
  uint64_t entries;     /* entry events (XRayEntryType ENTRY and LOG_ARGS_ENTRY) */
  uint64_t exits;       /* exit and tail-exit events: calls that ended */
  uint64_t timed;       /* calls whose entry and exit both fell in the window */
  uint64_t timed_ticks; /* their durations summed, in clock ticks (xr_now's) */
};

/* What a window saw in all. */
struct xr_budget_window {
  uint64_t wall_ns;          /* how long the wrapper was installed */
  uint64_t cpu_ns;           /* process CPU time (CLOCK_PROCESS_CPUTIME_ID) meanwhile */
  uint64_t events;           /* every event the wrapper passed on */
  uint64_t handler_ticks;    /* the mode's handler, timed around each event, summed */
  uint64_t untracked_events; /* events of functions a full per-thread table could not hold,
                                and a signal handler's events inside the wrapper (passed
                                on to the mode, counted for no function) */
  uint32_t threads;          /* threads that had at least one event */
};

enum {
  XR_BUDGET_WINDOW_OK = 0,
  XR_BUDGET_WINDOW_NO_HANDLER = -1, /* no built-in mode's lean handler is installed */
  XR_BUDGET_WINDOW_CHANGED = -2,    /* the handler changed meanwhile: nothing counted */
};

/* Runs one window of length_ns (sleeps in it) and calls each(sample, arg)
 * once per function seen, then fills *out. Cold path: the budget's thread
 * only. Returns XR_BUDGET_WINDOW_*. */
XR_HIDDEN int xr_budget_window_run(uint64_t length_ns,
                                   void (*each)(const struct xr_budget_fn_sample *s, void *arg),
                                   void *arg, struct xr_budget_window *out);

/* What an event costs beyond the mode's handler, measured on this machine
 * by xr_budget_calibrate (in clock ticks, per event). */
struct xr_budget_calibration {
  double trampoline_ticks; /* patched sled + trampoline lean path + call/return
                              (the port's probe, lib/arch: xr_arch_probe_events) */
  double window_ticks;     /* what the window's wrapper adds to an event */
  double timer_ticks;      /* what the two clock reads around the mode's handler
                              add to each event's handler_ticks (a window's
                              handler time per event less this is the handler's) */
  double ticks_per_ns;     /* the clock's rate */
};
XR_HIDDEN void xr_budget_calibrate(struct xr_budget_calibration *out);

/* Thread-exit and fork-child hooks of the windows' per-thread tables;
 * once, at the budget's start. Returns 0, or -1 when no hook is left. */
XR_HIDDEN int xr_budget_window_setup(void);

#ifdef XR_TEST_POINTS
/* Unit tests only (budget_window.c compiled again with XR_TEST_POINTS):
 * run on the window's thread once the wrapper is in, before the sleep. */
XR_HIDDEN extern void (*xr_budget_test_window_open)(void);
#endif

#endif
