/* One sampling window over a real instrumented program, in whatever mode
 * XRAY_OPTIONS started: a thread runs the window while main calls g (which
 * calls f) N times, only while the wrapper is in the slot (seen before the
 * first call and after the last, else the window was too short and it
 * runs again). Prints the window's samples of f and g, what else it saw,
 * and how many calls of f and g the program made in all, which the mode's
 * own log must hold. The window's functions are internal: hidden in the
 * archive, reachable in a static link. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#include "budget/budget_sample_lean.h"
#include "budget/budget_window.h"
#include "core/dispatch/hot_tables.h"
#include "xray/xray_interface.h"

#define NOXRAY __attribute__((xray_never_instrument))
#define TRACED __attribute__((xray_always_instrument, noinline))

static volatile int sink;
TRACED void f(void) { sink++; }
TRACED void g(void) { f(); }

enum { N = 1000, OUTSIDE = 7, ATTEMPTS = 10, WINDOW_NS = 300 * 1000 * 1000 };

static int32_t id_f, id_g;
static struct xr_budget_fn_sample got_f, got_g;
static unsigned others;
static struct xr_budget_window window;
static int window_rc, window_done;

NOXRAY static void each(const struct xr_budget_fn_sample *s, void *arg) {
  (void)arg;
  if (s->object == 0 && s->function == id_f)
    got_f = *s;
  else if (s->object == 0 && s->function == id_g)
    got_g = *s;
  else
    others++;
}

NOXRAY static void *run_window(void *arg) {
  (void)arg;
  window_rc = xr_budget_window_run(WINDOW_NS, each, NULL, &window);
  __atomic_store_n(&window_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

NOXRAY static int wrapper_in(void) {
  return __atomic_load_n(&xr_handler_lean[XR_SLOT_ARG0], __ATOMIC_ACQUIRE) ==
         (void *)xr_budget_sample;
}

NOXRAY static int32_t id_of(void (*fn)(void)) {
  for (int32_t id = 1; id <= (int32_t)__xray_max_function_id(); id++)
    if (__xray_function_address(id) == (uintptr_t)fn)
      return id;
  return 0;
}

NOXRAY int main(void) {
  id_f = id_of(f);
  id_g = id_of(g);
  if (id_f == 0 || id_g == 0 || xr_budget_window_setup() != 0) {
    fprintf(stderr, "no ids of f and g, or no hooks\n");
    return 1;
  }
  struct xr_budget_calibration c;
  xr_budget_calibrate(&c);
  fprintf(stderr, "calibration: trampoline %.1f ticks, window %.1f ticks, timer %.1f ticks, "
          "%.4f ticks/ns\n", c.trampoline_ticks, c.window_ticks, c.timer_ticks, c.ticks_per_ns);
  long calls_f = 0, calls_g = 0;
  for (int i = 0; i < OUTSIDE; i++, calls_f++)
    f();
  int ok = 0, attempt = 0;
  for (; attempt < ATTEMPTS && !ok; attempt++) {
    got_f = got_g = (struct xr_budget_fn_sample){0, 0, 0, 0, 0, 0};
    others = 0;
    __atomic_store_n(&window_done, 0, __ATOMIC_RELAXED);
    pthread_t t;
    if (pthread_create(&t, NULL, run_window, NULL) != 0)
      return 1;
    while (!wrapper_in() && !__atomic_load_n(&window_done, __ATOMIC_ACQUIRE))
      sched_yield();
    if (wrapper_in()) {
      for (int i = 0; i < N; i++, calls_f++, calls_g++)
        g();
      ok = wrapper_in();
    }
    pthread_join(t, NULL);
    ok = ok && window_rc == XR_BUDGET_WINDOW_OK;
  }
  for (int i = 0; i < OUTSIDE; i++, calls_f++)
    f();
  if (!ok) {
    printf("no window held %d calls in %d attempts (rc %d)\n", N, attempt, window_rc);
    return 1;
  }
  printf("f %llu %llu %llu\n", (unsigned long long)got_f.entries,
         (unsigned long long)got_f.exits, (unsigned long long)got_f.timed);
  printf("g %llu %llu %llu\n", (unsigned long long)got_g.entries,
         (unsigned long long)got_g.exits, (unsigned long long)got_g.timed);
  printf("others %u events %llu untracked %llu threads %u\n", others,
         (unsigned long long)window.events, (unsigned long long)window.untracked_events,
         window.threads);
  printf("timed %s, handler timed %s, wall %s\n", got_f.timed_ticks > 0 ? "yes" : "no",
         window.handler_ticks > 0 ? "yes" : "no", window.wall_ns >= WINDOW_NS ? "yes" : "no");
  fprintf(stderr, "calls: f %ld g %ld\n", calls_f, calls_g);
  return 0;
}
