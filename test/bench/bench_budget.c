/* What an open sampling window of the overhead budget adds to an event, in
 * the mode XRAY_OPTIONS started (test/bench/budget_bench.sh runs each).
 * One process: the calibration's figures (xr_budget_calibrate), the timer's
 * own floor (the wrapper's two tick reads around a handler that returns at
 * once, as the window's handler_ticks count it), then the fastest of BLOCKS
 * blocks of CALLS calls of a leaf with the mode's handler alone, and again
 * while a long window holds the wrapper in the slot (checked before the
 * first block and after the last). The window's internals are hidden in
 * the archive, reachable in a static link. Prints one line. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include "budget/budget_sample_lean.h"
#include "budget/budget_window.h"
#include "core/dispatch/hot_tables.h"

#define NOXRAY __attribute__((xray_never_instrument))
static volatile int sink;
__attribute__((xray_always_instrument, noinline, aligned(64))) void leaf(void) { sink++; }

enum { CALLS = 1000000, BLOCKS = 7 };
static struct xr_budget_window window;

NOXRAY static void each(const struct xr_budget_fn_sample *s, void *arg) {
  (void)s;
  (void)arg;
}
NOXRAY static void *long_window(void *arg) {
  (void)arg;
  xr_budget_window_run(4000000000ull, each, NULL, &window);
  return NULL;
}
NOXRAY static int wrapper_in(void) {
  return __atomic_load_n(&xr_handler_lean[XR_SLOT_ARG0], __ATOMIC_ACQUIRE) ==
         (void *)xr_budget_sample;
}
NOXRAY static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
/* ns per event (a call is two), the fastest block. */
NOXRAY static double fastest(void) {
  double best = 1e30;
  for (int b = 0; b < BLOCKS; b++) {
    double t0 = now_ns();
    for (int i = 0; i < CALLS; i++)
      leaf();
    double per_event = (now_ns() - t0) / (2.0 * CALLS);
    best = per_event < best ? per_event : best;
  }
  return best;
}
/* handler_ticks per event around a handler that returns at once. */
NOXRAY static double timer_floor(void) {
  struct xr_budget_thread *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t == MAP_FAILED)
    return 0;
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    t->events = t->handler_ticks = 0;
    xr_budget_sample_loop(t, 1 << 16, true);
    double f = (double)t->handler_ticks / (double)t->events;
    best = f < best ? f : best;
  }
  munmap(t, sizeof *t);
  return best;
}

NOXRAY int main(void) {
  if (xr_budget_window_setup() != 0)
    return 1;
  struct xr_budget_calibration c;
  xr_budget_calibrate(&c);
  double floor_ticks = timer_floor();
  for (int i = 0; i < CALLS; i++)
    leaf();
  double plain = fastest();
  pthread_t t;
  if (pthread_create(&t, NULL, long_window, NULL) != 0)
    return 1;
  while (!wrapper_in())
    sched_yield();
  double wrapped = fastest();
  int held = wrapper_in();
  pthread_join(t, NULL);
  if (!held || window.events == 0) {
    printf("F the window closed before the last block\n");
    return 1;
  }
  double tpn = c.ticks_per_ns;
  printf("trampoline %.2f ns, window %.2f ns, timer floor %.2f ns; per event: mode %.2f ns, "
         "in a window %.2f ns (+%.2f), window's handler mean %.2f ns\n",
         c.trampoline_ticks / tpn, c.window_ticks / tpn, floor_ticks / tpn, plain, wrapped,
         wrapped - plain, (double)window.handler_ticks / (double)window.events / tpn);
  return 0;
}
