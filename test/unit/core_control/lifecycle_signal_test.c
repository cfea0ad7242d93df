/* A signal that lands on a thread in the middle of its own lifecycle
 * transition, at each point where the transition's state changes
 * (core/modes/mode_lifecycle.c compiled again with its test points, which raise
 * the signal there): the handler does what exit does (the exit policy's
 * xr_lifecycle_transition and xr_lifecycle_wait_others) and what fork does
 * (a child that runs xr_lifecycle_after_fork, then carries on), and the
 * transition must be the thread's own every time: no wait, nothing dropped.
 * And the other way round: a signal on a thread about to lose its begin_*
 * to another thread's transition must see that transition as another's. */
#define _GNU_SOURCE /* pthread_barrier_t under any -std */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/modes/mode_lifecycle.h"
#include "lifecycle_states.h"

/* The one shot: at which point, on which lifecycle, whether to fork. */
static struct {
  struct xr_lifecycle *lc;
  enum xr_lifecycle_point at;
  bool fork;
  bool fired;
} shot;

/* What the handler saw (the exit policy's view, and the fork child's). */
static struct {
  enum xr_transition transition;
  bool mine;
  bool no_wait;     /* xr_lifecycle_wait_others returned true */
  unsigned budget;  /* what it left of 3 ms */
  pid_t child;      /* fork's result, in each process */
  enum xr_transition dropped; /* the child's xr_lifecycle_after_fork */
} seen;

static void on_signal(int sig) {
  (void)sig;
  seen.transition = xr_lifecycle_transition(shot.lc, &seen.mine);
  seen.budget = 3;
  seen.no_wait = xr_lifecycle_wait_others(shot.lc, &seen.budget);
  if (shot.fork) {
    seen.child = fork();
    if (seen.child == 0) /* as each mode's fork hook does */
      seen.dropped = xr_lifecycle_after_fork(shot.lc);
  }
}

static void point(struct xr_lifecycle *lc, enum xr_lifecycle_point at) {
  if (lc == shot.lc && at == shot.at && !shot.fired) {
    shot.fired = true;
    raise(SIGUSR1); /* delivered before raise returns */
  }
}

static int setup(void **state) {
  (void)state;
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  xr_lifecycle_test_point = point;
  return sigaction(SIGUSR1, &sa, NULL);
}

static void arm(struct xr_lifecycle *lc, enum xr_lifecycle_point at,
                bool and_fork) {
  shot.lc = lc;
  shot.at = at;
  shot.fork = and_fork;
  shot.fired = false;
  seen.transition = (enum xr_transition)-1;
  seen.mine = false;
  seen.no_wait = false;
  seen.budget = 0;
  seen.child = -1;
  seen.dropped = (enum xr_transition)-1;
}

/* The handler found its own thread inside transient state `at`. */
static void saw_own(enum at at) {
  assert_true(shot.fired);
  assert_int_equal(seen.transition, inside[at]);
  assert_true(seen.mine);
  assert_true(seen.no_wait);
  assert_int_equal(seen.budget, 3); /* not one poll */
}

/* Runs transition i (begin, then end) with the signal at `where`. */
static void run_transition(struct xr_lifecycle *lc, size_t i,
                           enum xr_lifecycle_point where, bool and_fork) {
  reach(lc, before[i]);
  if (where == XR_LC_BEGUN)
    arm(lc, where, and_fork);
  assert_true(begin_transition(lc, transient[i]));
  if (where == XR_LC_ENDING)
    arm(lc, where, and_fork);
  end_transition(lc, transient[i]);
}

/* Exit from a handler that interrupted the thread's own transition at
 * `where`: the exit policy does not wait for it. */
static void exit_in_own_transition(enum xr_lifecycle_point where) {
  for (size_t i = 0; i < 3; i++) {
    struct xr_lifecycle lc;
    run_transition(&lc, i, where, false);
    saw_own(transient[i]);
    assert_int_equal(xr_lifecycle_status(&lc), after[i]);
  }
}

/* A fork from that handler: the child keeps the transition (its thread is
 * the one making it), carries on and ends it; so does the parent. The
 * child's exit status says what it found: 1 its transition dropped, 2 not
 * ended as the parent's, 3 not its own. */
static void fork_in_own_transition(enum xr_lifecycle_point where) {
  for (size_t i = 0; i < 3; i++) {
    struct xr_lifecycle lc;
    run_transition(&lc, i, where, true);
    if (seen.child == 0)
      _exit(seen.dropped != XR_NO_TRANSITION                        ? 1
            : xr_lifecycle_status(&lc) != after[i]                  ? 2
            : !seen.mine || seen.transition != inside[transient[i]] ? 3
                                                                    : 0);
    int status = -1;
    assert_int_equal(waitpid(seen.child, &status, 0), seen.child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    saw_own(transient[i]);
    assert_int_equal(xr_lifecycle_status(&lc), after[i]);
  }
}

/* The two points: right after a begin_*'s CAS, right before an end_*'s
 * store. */
static void exit_after_begin_cas(void **state) {
  (void)state;
  exit_in_own_transition(XR_LC_BEGUN);
}

static void exit_before_end_store(void **state) {
  (void)state;
  exit_in_own_transition(XR_LC_ENDING);
}

static void fork_after_begin_cas(void **state) {
  (void)state;
  fork_in_own_transition(XR_LC_BEGUN);
}

static void fork_before_end_store(void **state) {
  (void)state;
  fork_in_own_transition(XR_LC_ENDING);
}

/* A signal on a thread whose begin_* is about to lose to another thread's
 * transition: that transition is the other thread's. The exit policy
 * waits for it (here until the 3 ms run out: the other thread is held),
 * and a fork child drops it. */
static void signal_before_losing_begin(void **state) {
  (void)state;
  for (size_t i = 0; i < 3; i++) {
    pthread_t t = start_holding(transient[i]);
    arm(&held.lc, XR_LC_BEFORE_BEGIN, true);
    bool won = begin_transition(&held.lc, transient[i]);
    if (seen.child == 0)
      _exit(seen.dropped != inside[transient[i]] ? 1 : 0);
    assert_false(won);
    assert_true(shot.fired);
    assert_int_equal(seen.transition, inside[transient[i]]);
    assert_false(seen.mine);
    assert_false(seen.no_wait);
    assert_int_equal(seen.budget, 0);
    int status = -1;
    assert_int_equal(waitpid(seen.child, &status, 0), seen.child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(xr_lifecycle_status(&held.lc), shown[transient[i]]);
    stop_holding(t);
    assert_int_equal(xr_lifecycle_status(&held.lc), after[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exit_after_begin_cas),
      cmocka_unit_test(exit_before_end_store),
      cmocka_unit_test(fork_after_begin_cas),
      cmocka_unit_test(fork_before_end_store),
      cmocka_unit_test(signal_before_losing_begin),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
