/* The sampling windows' wrapper (budget_sample_lean.c, a lean translation
 * unit) and the per-thread state it fills: budget_window.c installs the
 * wrapper in place of the mode's lean arg0 handler, then reads and clears
 * the states (budget_window.h says how a window runs). */
#ifndef XR_BUDGET_SAMPLE_LEAN_H
#define XR_BUDGET_SAMPLE_LEAN_H

#include "core/base/common.h"
#include "xray/xray_interface.h"

#define XR_BUDGET_SLOTS 4096u      /* a thread's table of functions, a power of two */
#define XR_BUDGET_SLOTS_USED 3072u /* filled to 3/4 at most: probes stay short */
#define XR_BUDGET_DEPTH 64u        /* the shadow stack's frames */

/* One function's events on one thread (id 0: the slot is empty). */
struct xr_budget_count {
  int32_t id; /* as the handler gets it: packed, or dense with XR_HANDLER_DENSE */
  uint32_t unused;
  uint64_t entries, exits, timed, timed_ticks;
};

/* A call entered in the window: its id, the tick after the mode's handler
 * ran for its entry, the sled's stack pointer (0: not known). */
struct xr_budget_frame {
  int32_t id;
  uint64_t tick;
  uintptr_t sp;
};

/* A thread's state, mapped at its first window event and never unmapped:
 * when the thread exits, the next new thread takes it over.
 * Protocol (core/thread/quiesce.h): the owner sets `busy`, then reads the
 * open word, touches the fields below only when it is set, and clears
 * `busy` with a release store; the controller closes the window, fences,
 * and reads a state only while its `busy` reads clear. */
struct xr_budget_thread {
  uint8_t busy;
  uint8_t owned; /* a thread has it (0 -> 1 by compare-and-swap, 0 at its exit) */
  uint8_t stale; /* the controller's: it gave up waiting on this state's busy */
  uint32_t depth; /* calls open on the stack, tracked or deeper */
  uint32_t used;  /* table slots in use, listed in used_at */
  uint32_t departed; /* owners that exited in this window after events */
  uint64_t events, handler_ticks, untracked;
  uint64_t events_at_departure; /* `events` when the last owner exited */
  uint64_t nested; /* atomic: events passed straight on, inside the wrapper */
  struct xr_budget_thread *next; /* the list of every state, never unlinked */
  struct xr_budget_frame stack[XR_BUDGET_DEPTH];
  uint16_t used_at[XR_BUDGET_SLOTS_USED];
  struct xr_budget_count table[XR_BUDGET_SLOTS];
};

/* The calling thread's state: NULL before its first window event;
 * XR_BUDGET_CLAIMING while it gets one (a signal handler's events meanwhile
 * pass on uncounted); XR_BUDGET_GONE after its exit hook, or when no state
 * could be mapped (then counted in xr_budget_unmapped). */
#define XR_BUDGET_CLAIMING ((struct xr_budget_thread *)1)
#define XR_BUDGET_GONE ((struct xr_budget_thread *)2)
XR_HIDDEN extern XR_TLS struct xr_budget_thread *xr_budget_tls;

/* Every state mapped so far (pushed at the head by compare-and-swap). */
XR_HIDDEN extern struct xr_budget_thread *xr_budget_threads;
/* Nonzero while a window counts: the quiesce protocol's word. */
XR_HIDDEN extern uint32_t xr_budget_open;
/* The mode's handler and its twin without the stack pointer, which the
 * wrapper calls: stored (release) before the wrapper is swapped in, and
 * never NULL again, so a wrapper still running after a window always
 * reaches a mode's handler. */
XR_HIDDEN extern void *xr_budget_inner;
XR_HIDDEN extern void *xr_budget_inner_no_sp;
/* Threads whose state could not be mapped (atomic). */
XR_HIDDEN extern uint64_t xr_budget_unmapped;

/* The wrapper, in its two forms (core/dispatch/handlers.h, "The sled's
 * stack pointer"). */
XR_HIDDEN void xr_budget_sample(int32_t id, XRayEntryType type, uintptr_t sp);
XR_HIDDEN void xr_budget_sample_no_sp(int32_t id, XRayEntryType type);

/* Calibration: the ticks n events take through the wrapper's code on the
 * private state t around a handler that returns at once (wrapped), or
 * through that handler alone (not wrapped); entry and exit in turn, of 16
 * functions. */
XR_HIDDEN uint64_t xr_budget_sample_loop(struct xr_budget_thread *t, uint64_t n, bool wrapped);

#ifdef XR_TEST_POINTS
/* Unit tests only (budget_sample_lean.c compiled again with
 * XR_TEST_POINTS): run inside the wrapper's busy section, where a signal
 * handler's event is passed straight on. */
XR_HIDDEN extern void (*xr_budget_test_busy)(void);
#endif

#endif
