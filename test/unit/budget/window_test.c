/* Sampling windows with a fake mode handler: the window's own thread (the
 * window-open test point) and threads it starts send events through the
 * arg0 slot as a trampoline would, and the samples must say exactly what
 * was sent: entries, exits, calls timed, the table's limit, the shadow
 * stack's depth and unwinding, events nested in the wrapper (a signal
 * handler's), thread exit and reuse of its state, dense ids, a handler
 * changed meanwhile, a fork inside a window. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "budget/budget_sample_lean.h"
#include "budget/budget_window.h"
#include "core/dispatch/dso_abi.h"
#include "core/dispatch/function_ids.h"
#include "core/dispatch/handlers.h"
#include "core/dispatch/hot_tables.h"
#include "core/dispatch/dense_ids_lean.h"

typedef void (*handler_sp)(int32_t, XRayEntryType, uintptr_t);
typedef void (*handler_no_sp)(int32_t, XRayEntryType);

/* The fake mode: what it was called with, per id and type. */
#define IDS 8192
static unsigned inner_calls[IDS][4], inner_no_sp_calls[IDS][4];
static uintptr_t inner_last_sp;
static void (*inner_also)(int32_t id); /* runs inside the handler, once */

static void fake(int32_t id, XRayEntryType type, uintptr_t sp) {
  int32_t i = (int32_t)((uint32_t)id % IDS);
  __atomic_fetch_add(&inner_calls[i][type & 3], 1, __ATOMIC_RELAXED); /* other threads too */
  inner_last_sp = sp;
  if (inner_also != NULL) {
    void (*also)(int32_t) = inner_also;
    inner_also = NULL;
    also(id);
  }
}
static void fake_no_sp(int32_t id, XRayEntryType type) {
  inner_no_sp_calls[(uint32_t)id % IDS][type & 3]++;
}
static void other_handler(int32_t id, XRayEntryType type, uintptr_t sp) {
  (void)id, (void)type, (void)sp;
}

/* An event as the trampoline's lean path makes it. */
static void event(int32_t id, XRayEntryType type, uintptr_t sp) {
  ((handler_sp)xr_handler_lean[XR_SLOT_ARG0])(id, type, sp);
}
/* As LLVM 20's per-object trampolines call it, without a stack pointer. */
extern void *volatile xr_llvm_patched_function __asm__("_ZN6__xray19XRayPatchedFunctionE");
static void event_no_sp(int32_t id, XRayEntryType type) {
  ((handler_no_sp)xr_llvm_patched_function)(id, type);
}

static int failed_line;
#define check(cond)                                                            \
  do {                                                                         \
    if (!(cond) && failed_line == 0)                                           \
      failed_line = __LINE__;                                                  \
  } while (0)

/* The samples of one window, by packed id. */
struct seen {
  int n;
  struct xr_budget_fn_sample s[4096];
};
static struct seen seen;
static void each(const struct xr_budget_fn_sample *s, void *arg) {
  struct seen *w = arg;
  check(w->n < 4096);
  if (w->n < 4096)
    w->s[w->n++] = *s;
}
static const struct xr_budget_fn_sample *sample(int32_t object, int32_t function) {
  for (int i = 0; i < seen.n; i++)
    if (seen.s[i].object == object && seen.s[i].function == function)
      return &seen.s[i];
  return NULL;
}
static void expect(int32_t function, uint64_t entries, uint64_t exits, uint64_t timed) {
  const struct xr_budget_fn_sample *s = sample(0, function);
  assert_non_null(s);
  assert_int_equal(s->entries, entries);
  assert_int_equal(s->exits, exits);
  assert_int_equal(s->timed, timed);
}

/* Runs one window whose body (on the window's thread, wrapper in) is fn.
 * What runs inside the window checks with check(), not cmocka's asserts,
 * whose jump out would leave the window running; window() fails on the
 * first line whose check failed. */
static void (*body)(void);
static void run_body(void) { body(); }
static int window(void (*fn)(void), struct xr_budget_window *w) {
  memset(&seen, 0, sizeof seen);
  failed_line = 0;
  body = fn;
  xr_budget_test_window_open = run_body;
  int rc = xr_budget_window_run(0, each, &seen, w);
  xr_budget_test_window_open = NULL;
  assert_int_equal(failed_line, 0);
  return rc;
}

static int setup(void **state) {
  (void)state;
  memset(inner_calls, 0, sizeof inner_calls);
  memset(inner_no_sp_calls, 0, sizeof inner_no_sp_calls);
  assert_int_equal(xr_budget_window_setup(), 0);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)fake, (void *)fake_no_sp, 0);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  xr_handler_install(XR_SLOT_ARG0, NULL, XR_HANDLER_LEAN);
  return 0;
}

enum { SP = 0x7fff0000, N = 1000 };

/* f calls g N times; h exits (entered before the window); i never exits. */
static void calls(void) {
  check(xr_handler_lean[XR_SLOT_ARG0] == (void *)xr_budget_sample);
  for (int k = 0; k < N; k++) {
    event(1, ENTRY, SP);
    event(2, ENTRY, SP - 64);
    event(2, EXIT, SP - 64);
    event(1, EXIT, SP);
  }
  event(3, EXIT, SP + 64);
  event(4, ENTRY, SP);
  event(5, LOG_ARGS_ENTRY, SP - 64);
  event(5, TAIL, SP - 64);
}
static void counts_and_times(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(calls, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(seen.n, 5);
  expect(1, N, N, N);
  expect(2, N, N, N);
  expect(3, 0, 1, 0);
  expect(4, 1, 0, 0);
  expect(5, 1, 1, 1);
  assert_int_equal(w.events, 4 * N + 4);
  assert_int_equal(w.untracked_events, 0);
  assert_int_equal(w.threads, 1);
  assert_true(w.handler_ticks > 0);
  assert_true(sample(0, 1)->timed_ticks > 0);
  /* Every event went on to the mode's handler, with its stack pointer. */
  assert_int_equal(inner_calls[1][ENTRY], N);
  assert_int_equal(inner_calls[2][EXIT], N);
  assert_int_equal(inner_calls[5][TAIL], 1);
  assert_int_equal(inner_last_sp, SP - 64);
  /* The mode's handler is back; the next window starts from nothing. */
  assert_ptr_equal(xr_handler_lean[XR_SLOT_ARG0], (void *)fake);
  assert_int_equal(window(calls, &w), XR_BUDGET_WINDOW_OK);
  expect(1, N, N, N);
  expect(4, 1, 0, 0);
}

/* More functions than a thread's table holds. */
static void many(void) {
  for (int32_t id = 1; id <= (int32_t)XR_BUDGET_SLOTS_USED + 100; id++)
    event(id, ENTRY, 0);
}
static void table_full(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(many, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(seen.n, XR_BUDGET_SLOTS_USED);
  assert_int_equal(w.events, XR_BUDGET_SLOTS_USED + 100);
  assert_int_equal(w.untracked_events, 100);
  for (int i = 0; i < seen.n; i++)
    assert_int_equal(seen.s[i].entries, 1);
  assert_int_equal(inner_calls[XR_BUDGET_SLOTS_USED + 100][ENTRY], 1);
}

/* 70 calls deep: the 64 outer ones are timed, the deeper ones counted. A
 * call left by longjmp is dropped when an event above it comes. */
static void deep_and_unwound(void) {
  for (int d = 0; d < 70; d++)
    event(100 + d, ENTRY, SP - 64u * (unsigned)d);
  for (int d = 69; d >= 0; d--)
    event(100 + d, EXIT, SP - 64u * (unsigned)d);
  event(1, ENTRY, SP);
  event(2, ENTRY, SP - 64);
  event(3, ENTRY, SP - 128);
  event(1, EXIT, SP); /* 2 and 3 were left without their exits */
  event(6, ENTRY, SP);
  event(6, EXIT, SP);
}
static void deep_stack(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(deep_and_unwound, &w), XR_BUDGET_WINDOW_OK);
  for (int d = 0; d < 70; d++)
    expect(100 + d, 1, 1, d < (int)XR_BUDGET_DEPTH ? 1 : 0);
  expect(1, 1, 1, 1);
  expect(2, 1, 0, 0);
  expect(3, 1, 0, 0);
  expect(6, 1, 1, 1);
}

/* A signal handler's event while the wrapper counts (the busy test point
 * raises the signal): passed straight on to the mode's handler, counted
 * only as nested. One that comes while the mode's handler runs is an
 * event like any other. */
static void on_signal(int sig) {
  (void)sig;
  event(9, ENTRY, SP - 4096);
}
static void raise_once(void) {
  xr_budget_test_busy = NULL;
  raise(SIGUSR1);
}
static void inside_inner(int32_t id) {
  (void)id;
  event(10, ENTRY, SP - 4096);
  event(10, EXIT, SP - 4096);
}
static void nested_events(void) {
  xr_budget_test_busy = raise_once;
  event(1, ENTRY, SP);
  inner_also = inside_inner;
  event(1, EXIT, SP);
}
static void nested(void **state) {
  (void)state;
  signal(SIGUSR1, on_signal);
  struct xr_budget_window w;
  assert_int_equal(window(nested_events, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(inner_calls[9][ENTRY], 1);
  assert_null(sample(0, 9));
  expect(1, 1, 1, 1);
  expect(10, 1, 1, 1);
  assert_int_equal(w.events, 5);
  assert_int_equal(w.untracked_events, 1);
  signal(SIGUSR1, SIG_DFL);
}

/* Threads that exit give their state to the next new thread. */
static size_t states(void) {
  size_t n = 0;
  for (struct xr_budget_thread *t = xr_budget_threads; t != NULL; t = t->next)
    n++;
  return n;
}
static void *calls_of_7(void *arg) {
  for (int k = 0; k < *(int *)arg; k++) {
    event(7, ENTRY, SP);
    event(7, EXIT, SP);
  }
  return NULL;
}
static void two_threads_one_after_the_other(void) {
  int five = 5, seven = 7;
  pthread_t t;
  check(pthread_create(&t, NULL, calls_of_7, &five) == 0);
  pthread_join(t, NULL);
  check(pthread_create(&t, NULL, calls_of_7, &seven) == 0);
  pthread_join(t, NULL);
}
static void thread_reuse(void **state) {
  (void)state;
  struct xr_budget_window w;
  size_t before = states();
  assert_int_equal(window(two_threads_one_after_the_other, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(states(), before + 1);
  expect(7, 12, 12, 12);
  assert_int_equal(w.threads, 2);
  assert_int_equal(window(two_threads_one_after_the_other, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(states(), before + 1);
  expect(7, 12, 12, 12);
}

/* The twin without the stack pointer (LLVM 20's objects) times by id. */
static void no_sp_calls(void) {
  event_no_sp(1, ENTRY);
  event_no_sp(2, ENTRY);
  event_no_sp(2, EXIT);
  event_no_sp(1, EXIT);
}
static void without_sp(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(no_sp_calls, &w), XR_BUDGET_WINDOW_OK);
  expect(1, 1, 1, 1);
  expect(2, 1, 1, 1);
  assert_int_equal(inner_no_sp_calls[1][EXIT], 1);
}

/* A wrapper still running after its window (loaded from the slot before
 * the swap back) passes its event on and counts nothing. */
static void nothing(void) {}
static void after_the_window(void **state) {
  (void)state;
  unsigned before = inner_calls[11][ENTRY];
  xr_budget_sample(11, ENTRY, SP);
  assert_int_equal(inner_calls[11][ENTRY], before + 1);
  struct xr_budget_window w;
  assert_int_equal(window(nothing, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(seen.n, 0);
  assert_int_equal(w.events, 0);
  assert_int_equal(w.threads, 0);
}

/* The mode installs a handler while the window runs: nothing counted, the
 * new handler stays. Without a lean handler there is no window. */
static void mode_changes(void) {
  event(1, ENTRY, SP);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)other_handler, (void *)fake_no_sp, 0);
}
static void handler_changed(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(mode_changes, &w), XR_BUDGET_WINDOW_CHANGED);
  assert_int_equal(seen.n, 0);
  assert_int_equal(w.events, 0);
  assert_ptr_equal(xr_handler_lean[XR_SLOT_ARG0], (void *)other_handler);
  xr_handler_install(XR_SLOT_ARG0, NULL, XR_HANDLER_LEAN);
  assert_int_equal(window(nothing, &w), XR_BUDGET_WINDOW_NO_HANDLER);
}

/* A mode that removes its own handler removes it while the wrapper stands
 * in for it, and no other. */
static void mode_removes_its_own(void) {
  xr_handler_remove_lean_if(XR_SLOT_ARG0, (void *)other_handler);
  check(xr_handler_lean[XR_SLOT_ARG0] == (void *)xr_budget_sample);
  xr_handler_remove_lean_if(XR_SLOT_ARG0, (void *)fake);
  check(xr_handler_lean[XR_SLOT_ARG0] == NULL);
}
static void removed_while_wrapped(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(mode_removes_its_own, &w), XR_BUDGET_WINDOW_CHANGED);
  assert_null(xr_handler_lean[XR_SLOT_ARG0]);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)fake, (void *)fake_no_sp, 0);
}

/* Fork inside a window: the child has the mode's handler back, no window
 * open, the other threads' states free and every count gone. */
static pthread_t holder;
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static void *holds_a_state(void *arg) {
  (void)arg;
  event(12, ENTRY, SP);
  pthread_mutex_lock(&hold);
  pthread_mutex_unlock(&hold);
  return NULL;
}
static void forks(void) {
  event(1, ENTRY, SP);
  pthread_mutex_lock(&hold);
  check(pthread_create(&holder, NULL, holds_a_state, NULL) == 0);
  while (__atomic_load_n(&inner_calls[12][ENTRY], __ATOMIC_RELAXED) == 0)
    sched_yield();
  pid_t pid = fork();
  if (pid == 0) {
    int bad = xr_handler_lean[XR_SLOT_ARG0] != (void *)fake;
    bad |= (__atomic_load_n(&xr_budget_open, __ATOMIC_RELAXED) != 0) << 1;
    for (struct xr_budget_thread *t = xr_budget_threads; t != NULL; t = t->next) {
      bad |= (t != xr_budget_tls && t->owned) << 2;
      bad |= (t->used != 0 || t->events != 0 || t->depth != 0) << 3;
    }
    _exit(bad);
  }
  int status = -1;
  check(waitpid(pid, &status, 0) == pid);
  check(WIFEXITED(status));
  check(WEXITSTATUS(status) == 0);
  pthread_mutex_unlock(&hold);
  pthread_join(holder, NULL);
}
static void fork_in_window(void **state) {
  (void)state;
  struct xr_budget_window w;
  assert_int_equal(window(forks, &w), XR_BUDGET_WINDOW_OK);
  expect(1, 1, 0, 0);
  expect(12, 1, 0, 0);
  assert_int_equal(w.threads, 2);
}

/* Dense ids (FDR's): an object registered with a made-up map gets an id
 * base; its functions come back as (object, function). */
static unsigned char map[4 * 32];
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static int32_t register_two_functions(void) {
  for (int i = 0; i < 4; i++) {
    unsigned char *e = map + 32 * i;
    uint64_t fn = 0x7f0000001000ull + (i / 2) * 0x100, sled = fn + (i % 2) * 0x20;
    memset(e, 0, 32);
    put64(e, sled - (uint64_t)(uintptr_t)e);
    put64(e + 8, fn - (uint64_t)(uintptr_t)(e + 8));
    e[16] = (unsigned char)(i % 2);
    e[18] = 2;
  }
  struct xr_dso_trampolines t = {(void (*)(void))fake, (void (*)(void))fake,
                                 (void (*)(void))fake, (void (*)(void))fake};
  return __xray_register_dso(map, map + sizeof map, NULL, NULL, t);
}
static int32_t dense_base;
/* The object's own copy of the dispatch and of the dense handlers. */
static void *volatile object_slots[XR_T_CALL_COUNT], *volatile object_handlers[2];
static void dense_path(void) {}
static void dense_calls(void) {
  /* Every copy calls the wrapper meanwhile, with the mode's dense bit. */
  check(xr_dense_handlers[0] == (void *)xr_budget_sample);
  check(xr_dense_handlers_no_sp[0] == (void *)xr_budget_sample_no_sp);
  check(object_handlers[0] == (void *)xr_budget_sample);
  check(object_slots[XR_T_ENTRY] == (void *)dense_path);
  event((int32_t)dense_base + 2, ENTRY, SP);
  event((int32_t)dense_base + 2, EXIT, SP);
  event((int32_t)dense_base + 1, ENTRY, SP);
}
static void dense_ids(void **state) {
  (void)state;
  int32_t object = register_two_functions();
  assert_true(object > 0);
  dense_base = (int32_t)xr_objects_id_base[object];
  int32_t offset = 0;
  struct xr_dso_dense d = {object_slots, object_handlers, &offset,
                           {dense_path, dense_path, dense_path, dense_path}};
  __xray_dso_dense_dispatch_sp(object, &d);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)fake, (void *)fake_no_sp, XR_HANDLER_DENSE);
  struct xr_budget_window w;
  assert_int_equal(window(dense_calls, &w), XR_BUDGET_WINDOW_OK);
  assert_int_equal(seen.n, 2);
  const struct xr_budget_fn_sample *s = sample(object, 2);
  assert_non_null(s);
  assert_int_equal(s->entries, 1);
  assert_int_equal(s->timed, 1);
  s = sample(object, 1);
  assert_non_null(s);
  assert_int_equal(s->entries, 1);
  assert_int_equal(s->exits, 0);
  /* The flags came back with the mode's handler. */
  assert_ptr_equal(xr_dense_handlers[0], (void *)fake);
  assert_ptr_equal(object_handlers[0], (void *)fake);
  assert_ptr_equal(xr_llvm_patched_function, (void *)xr_dense_wrap_arg0);
  xr_handler_install_lean(XR_SLOT_ARG0, (void *)fake, (void *)fake_no_sp, 0);
}

/* Calibration measures something on both sides. */
static void calibration(void **state) {
  (void)state;
  struct xr_budget_calibration c;
  xr_budget_calibrate(&c);
  assert_true(c.trampoline_ticks > 0);
  assert_true(c.window_ticks > 0);
  assert_true(c.timer_ticks > 0); /* two clock reads are never free */
  assert_true(c.ticks_per_ns > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(counts_and_times, setup, teardown),
      cmocka_unit_test_setup_teardown(table_full, setup, teardown),
      cmocka_unit_test_setup_teardown(deep_stack, setup, teardown),
      cmocka_unit_test_setup_teardown(nested, setup, teardown),
      cmocka_unit_test_setup_teardown(thread_reuse, setup, teardown),
      cmocka_unit_test_setup_teardown(without_sp, setup, teardown),
      cmocka_unit_test_setup_teardown(after_the_window, setup, teardown),
      cmocka_unit_test_setup_teardown(handler_changed, setup, teardown),
      cmocka_unit_test_setup_teardown(removed_while_wrapped, setup, teardown),
      cmocka_unit_test_setup_teardown(fork_in_window, setup, teardown),
      cmocka_unit_test_setup_teardown(dense_ids, setup, teardown),
      cmocka_unit_test(calibration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
