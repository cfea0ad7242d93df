/* The helpers every mode shares: the thread registry (thread_list.h) and
 * the way its lock is taken, the cold-path lock (lock.h) and the quiesce
 * protocol's wait (quiesce.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/thread/lock.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread_list.h"

struct rec {
  int id;
  struct xr_thread_link link;
};

/* The ids on the list, head first, as digits ("321"). */
static void ids(const struct xr_thread_list *l, char *out) {
  for (const struct xr_thread_link *n = l->head; n != NULL; n = n->next)
    *out++ = (char)('0' + xr_thread_entry(n, struct rec, link)->id);
  *out = '\0';
}

static void thread_list_add_remove_fork(void **state) {
  (void)state;
  struct xr_thread_list l = {NULL};
  struct rec a = {1, {0}}, b = {2, {0}}, c = {3, {0}};
  char got[8];
  xr_thread_list_add(&l, &a.link);
  xr_thread_list_add(&l, &b.link);
  xr_thread_list_add(&l, &c.link);
  ids(&l, got);
  assert_string_equal(got, "321");
  xr_thread_list_remove(&l, &b.link); /* middle */
  ids(&l, got);
  assert_string_equal(got, "31");
  assert_false(b.link.registered);
  xr_thread_list_remove(&l, &b.link); /* not on it: nothing happens */
  ids(&l, got);
  assert_string_equal(got, "31");
  xr_thread_list_remove(&l, &c.link); /* head */
  ids(&l, got);
  assert_string_equal(got, "1");
  xr_thread_list_add(&l, &b.link);
  xr_thread_list_after_fork(&l, &a.link); /* a survives, alone */
  ids(&l, got);
  assert_string_equal(got, "1");
  assert_true(a.link.registered);
  xr_thread_list_after_fork(&l, &c.link); /* c was not on it: empty */
  ids(&l, got);
  assert_string_equal(got, "");
}

static void lock_after_fork_frees_it(void **state) {
  (void)state;
  xr_lock l = {0};
  xr_lock_take(&l);
  assert_int_equal(l.held, 1);
  xr_lock_after_fork(&l); /* the holder did not survive */
  assert_int_equal(l.held, 0);
  xr_lock_take(&l);
  xr_lock_release(&l);
  assert_int_equal(l.held, 0);
}

/* The list's lock is held only with the holder's guard set (so a signal
 * handler on its thread never registers, which would take it again), and
 * the guard is given back as it was: clear, or set by an outer handler. */
static void thread_list_lock_sets_the_guard(void **state) {
  (void)state;
  xr_lock l = {0};
  assert_int_equal(xr_in_handler, 0);
  uint8_t was = xr_thread_list_lock(&l);
  assert_int_equal(was, 0);
  assert_int_equal(l.held, 1);
  assert_int_equal(xr_in_handler, 1);
  xr_thread_list_unlock(&l, was);
  assert_int_equal(l.held, 0);
  assert_int_equal(xr_in_handler, 0);
  xr_in_handler = 1; /* taken from inside the tracer: stays set */
  was = xr_thread_list_lock(&l);
  assert_int_equal(was, 1);
  xr_thread_list_unlock(&l, was);
  assert_int_equal(xr_in_handler, 1);
  xr_in_handler = 0;
}

/* A deadline already past: 64 pause steps, then the first timed step
 * gives up. A deadline far ahead: still waiting after many steps. */
static void quiesce_wait_is_bounded(void **state) {
  (void)state;
  unsigned steps = 0, n = 0;
  uint64_t past = xr_quiesce_deadline(0) - 1;
  while (xr_quiesce_wait_step(&steps, past))
    n++;
  assert_int_equal(n, 64);
  steps = 0;
  uint64_t later = xr_quiesce_deadline(60ull * 1000000000u);
  for (n = 0; n < 200; n++)
    assert_true(xr_quiesce_wait_step(&steps, later));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thread_list_add_remove_fork),
      cmocka_unit_test(lock_after_fork_frees_it),
      cmocka_unit_test(thread_list_lock_sets_the_guard),
      cmocka_unit_test(quiesce_wait_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
