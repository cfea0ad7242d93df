/* thread.c: cached ids in threads and after fork, exit hooks, fork hooks. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "core/thread/thread.h"

static int32_t real_tid(void) { return (int32_t)syscall(SYS_gettid); }

static void main_thread_ids(void **state) {
  (void)state;
  assert_int_equal(xr_tid(), real_tid());
  assert_int_equal(xr_tid(), real_tid()); /* cached */
  assert_int_equal(xr_thread_tid_cache, real_tid());
  assert_int_equal(xr_pid(), getpid());
  assert_int_equal(xr_tid(), getpid()); /* main thread */
}

static void *report_ids(void *out) {
  int32_t *ids = out;
  ids[0] = xr_tid();
  ids[1] = real_tid();
  ids[2] = xr_tid();
  ids[3] = xr_pid();
  return NULL;
}

static void ids_in_threads(void **state) {
  (void)state;
  enum { N = 4 };
  pthread_t t[N];
  int32_t ids[N][4];
  for (int i = 0; i < N; i++)
    pthread_create(&t[i], NULL, report_ids, ids[i]);
  for (int i = 0; i < N; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_int_equal(ids[i][0], ids[i][1]);
    assert_int_equal(ids[i][2], ids[i][1]);
    assert_int_equal(ids[i][3], getpid());
    assert_int_not_equal(ids[i][0], getpid());
    for (int j = 0; j < i; j++)
      assert_int_not_equal(ids[i][0], ids[j][0]);
  }
}

/* ---- fork ---------------------------------------------------------------- */

static int32_t tid_seen_by_fork_hook, pid_seen_by_fork_hook;
static int fork_hook_calls;
static void fork_hook(void) {
  fork_hook_calls++;
  tid_seen_by_fork_hook = xr_thread_tid_cache; /* raw cache, not refreshed */
  pid_seen_by_fork_hook = xr_process_pid_cache;
}

/* Child exit codes say what went wrong. */
static int child_checks(void) {
  if (xr_pid() != getpid())
    return 10;
  if (xr_tid() != real_tid())
    return 11;
  if (fork_hook_calls != 1)
    return 12;
  if (pid_seen_by_fork_hook != getpid() || tid_seen_by_fork_hook != real_tid())
    return 13;
  return 0;
}

static void ids_refreshed_after_fork_before_hooks(void **state) {
  (void)state;
  assert_int_equal(xr_thread_on_fork_child(fork_hook), 0);
  assert_int_equal(xr_thread_on_fork_child(fork_hook), 0); /* no duplicate */
  int32_t parent_pid = xr_pid(), parent_tid = xr_tid(); /* fill the caches */
  pid_t child = fork();
  if (child == 0)
    _exit(child_checks());
  int status;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_equal(fork_hook_calls, 0); /* parent: hook not run */
  assert_int_equal(xr_pid(), parent_pid);
  assert_int_equal(xr_tid(), parent_tid);
}

static void *fork_from_thread(void *arg) {
  (void)arg;
  xr_tid();
  pid_t child = fork();
  if (child == 0)
    _exit(xr_tid() == real_tid() && xr_tid() == getpid() ? 0 : 20);
  int status;
  waitpid(child, &status, 0);
  return (void *)(intptr_t)(WIFEXITED(status) ? WEXITSTATUS(status) : 99);
}

static void fork_from_a_thread(void **state) {
  (void)state;
  pthread_t t;
  void *rc;
  pthread_create(&t, NULL, fork_from_thread, NULL);
  pthread_join(t, &rc);
  assert_int_equal((intptr_t)rc, 0);
}

/* ---- thread exit hooks ------------------------------------------------- */

static int exit_calls;
static int exit_calls_in_handler;
static int32_t exiting_tid;
static void exit_hook(void) {
  __atomic_add_fetch(&exit_calls, 1, __ATOMIC_RELAXED);
  if (xr_in_handler)
    __atomic_add_fetch(&exit_calls_in_handler, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&exiting_tid, xr_tid(), __ATOMIC_RELAXED);
}

static void *armed_thread(void *arg) {
  (void)arg;
  xr_thread_arm();
  xr_thread_arm();
  xr_thread_arm();
  return (void *)(intptr_t)xr_tid();
}

static void *unarmed_thread(void *arg) {
  (void)arg;
  return NULL;
}

static void exit_hooks_run_once_for_armed_threads(void **state) {
  (void)state;
  assert_int_equal(xr_thread_on_exit(exit_hook), 0);
  pthread_t t;
  void *tid;
  pthread_create(&t, NULL, armed_thread, NULL);
  pthread_join(t, &tid);
  assert_int_equal(exit_calls, 1);
  assert_int_equal(exit_calls_in_handler, 1);
  assert_int_equal(exiting_tid, (int32_t)(intptr_t)tid);
  pthread_create(&t, NULL, unarmed_thread, NULL);
  pthread_join(t, NULL);
  assert_int_equal(exit_calls, 1);
  enum { N = 4 };
  pthread_t ts[N];
  for (int i = 0; i < N; i++)
    pthread_create(&ts[i], NULL, armed_thread, NULL);
  for (int i = 0; i < N; i++)
    pthread_join(ts[i], NULL);
  assert_int_equal(exit_calls, 1 + N);
  assert_int_equal(xr_in_handler, 0);
}

#define HOOK(n) static void hook##n(void) {}
HOOK(1) HOOK(2) HOOK(3) HOOK(4) HOOK(5) HOOK(6) HOOK(7) HOOK(8)
HOOK(9) HOOK(10) HOOK(11) HOOK(12) HOOK(13) HOOK(14) HOOK(15) HOOK(16)

static void at_most_sixteen_exit_hooks(void **state) {
  (void)state;
  /* exit_hook is registered already: fifteen more fit, the sixteenth does
   * not. */
  void (*more[])(void) = {hook1,  hook2,  hook3,  hook4,  hook5,
                          hook6,  hook7,  hook8,  hook9,  hook10,
                          hook11, hook12, hook13, hook14, hook15};
  _Static_assert(sizeof more / sizeof more[0] == XR_THREAD_HOOKS_MAX - 1,
                 "one hook short of the limit");
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
    assert_int_equal(xr_thread_on_exit(more[i]), 0);
  assert_int_equal(xr_thread_on_exit(hook16), -1);
  assert_int_equal(xr_thread_on_exit(hook1), 0); /* known: still fine */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(main_thread_ids),
      cmocka_unit_test(ids_in_threads),
      cmocka_unit_test(ids_refreshed_after_fork_before_hooks),
      cmocka_unit_test(fork_from_a_thread),
      cmocka_unit_test(exit_hooks_run_once_for_armed_threads),
      cmocka_unit_test(at_most_sixteen_exit_hooks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
