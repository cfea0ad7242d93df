/* The modes' one lifecycle (core/modes/mode_lifecycle.h): every transition, what
 * each call returns in every state it may not leave (the statuses the three
 * modes hand back to their callers), that of threads racing for a
 * transition exactly one wins, the transition's owner, the exit policy's
 * bounded wait for another thread's transition, and what a fork child makes
 * of a transition another thread was inside. */
#define _GNU_SOURCE /* pthread_barrier_t under any -std */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/modes/mode_lifecycle.h"
#include "lifecycle_states.h"

static void one_cycle_then_another(void **state) {
  (void)state;
  struct xr_lifecycle lc = XR_LIFECYCLE_INITIAL;
  XRayLogInitStatus now = (XRayLogInitStatus)-1;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_UNINITIALIZED);
    assert_true(xr_lifecycle_begin_init(&lc, &now));
    assert_int_equal(now, XRAY_LOG_INITIALIZING);
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_INITIALIZING);
    assert_int_equal(xr_lifecycle_end_init(&lc, true), XRAY_LOG_INITIALIZED);
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_INITIALIZED);
    assert_true(xr_lifecycle_begin_finalize(&lc, &now));
    assert_int_equal(now, XRAY_LOG_FINALIZING);
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_FINALIZING);
    assert_int_equal(xr_lifecycle_end_finalize(&lc), XRAY_LOG_FINALIZED);
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_FINALIZED);
    assert_true(xr_lifecycle_begin_flush(&lc));
    assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_FINALIZED);
    assert_int_equal(xr_lifecycle_end_flush(&lc), XRAY_LOG_FLUSHED);
  }
  assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_UNINITIALIZED);
}

static void failed_init_goes_back(void **state) {
  (void)state;
  struct xr_lifecycle lc;
  XRayLogInitStatus now;
  reach(&lc, AT_INITIALIZING);
  assert_int_equal(xr_lifecycle_end_init(&lc, false), XRAY_LOG_UNINITIALIZED);
  assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_UNINITIALIZED);
  assert_false(xr_lifecycle_begin_finalize(&lc, &now));
  assert_int_equal(now, XRAY_LOG_UNINITIALIZED);
  assert_true(xr_lifecycle_begin_init(&lc, &now)); /* may try again */
}

/* Every call in every state: which may start, what the others are told, and
 * that a refused call leaves the state as it was. */
static void each_call_in_each_state(void **state) {
  (void)state;
  for (int at = 0; at < AT_COUNT; at++) {
    struct xr_lifecycle lc;
    XRayLogInitStatus now = (XRayLogInitStatus)-1;

    reach(&lc, (enum at)at);
    assert_int_equal(xr_lifecycle_status(&lc), shown[at]);
    bool init = xr_lifecycle_begin_init(&lc, &now);
    assert_int_equal(init, at == AT_UNINIT);
    assert_int_equal(now, init ? XRAY_LOG_INITIALIZING : shown[at]);
    if (!init)
      assert_int_equal(xr_lifecycle_status(&lc), shown[at]);

    reach(&lc, (enum at)at);
    now = (XRayLogInitStatus)-1;
    bool fin = xr_lifecycle_begin_finalize(&lc, &now);
    assert_int_equal(fin, at == AT_INIT);
    assert_int_equal(now, fin ? XRAY_LOG_FINALIZING : shown[at]);
    if (!fin)
      assert_int_equal(xr_lifecycle_status(&lc), shown[at]);

    reach(&lc, (enum at)at);
    bool flush = xr_lifecycle_begin_flush(&lc);
    assert_int_equal(flush, at == AT_FINAL);
    assert_int_equal(xr_lifecycle_status(&lc), shown[at]);
    /* A refused flush leaves a running one running: it still ends it. */
    if (at == AT_FLUSHING) {
      assert_false(xr_lifecycle_begin_init(&lc, &now));
      assert_int_equal(xr_lifecycle_end_flush(&lc), XRAY_LOG_FLUSHED);
      assert_int_equal(xr_lifecycle_status(&lc), XRAY_LOG_UNINITIALIZED);
    }
  }
}

/* ---- races: of N threads released at once, exactly one wins ----------- */

#define RACERS 8
#define ROUNDS 200

enum race { RACE_INIT, RACE_FINALIZE, RACE_FLUSH };

static struct {
  struct xr_lifecycle lc;
  pthread_barrier_t go, done;
  enum race race;
  int wins, losses;               /* atomic */
  XRayLogInitStatus told[RACERS]; /* what each loser was told */
} arena;

static void *racer(void *arg) {
  int me = (int)(intptr_t)arg;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_wait(&arena.go);
    XRayLogInitStatus now = (XRayLogInitStatus)-1;
    bool won = arena.race == RACE_INIT ? xr_lifecycle_begin_init(&arena.lc, &now)
             : arena.race == RACE_FINALIZE
                 ? xr_lifecycle_begin_finalize(&arena.lc, &now)
                 : xr_lifecycle_begin_flush(&arena.lc);
    __atomic_fetch_add(won ? &arena.wins : &arena.losses, 1, __ATOMIC_RELAXED);
    arena.told[me] = now; /* begin_flush tells nothing: stays -1 */
    pthread_barrier_wait(&arena.done);
  }
  return NULL;
}

static void race(enum race kind, enum at from, XRayLogInitStatus losers_told,
                 XRayLogInitStatus after) {
  pthread_t t[RACERS];
  arena.race = kind;
  pthread_barrier_init(&arena.go, NULL, RACERS + 1);
  pthread_barrier_init(&arena.done, NULL, RACERS + 1);
  for (int i = 0; i < RACERS; i++)
    assert_int_equal(pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i), 0);
  for (int r = 0; r < ROUNDS; r++) {
    reach(&arena.lc, from);
    __atomic_store_n(&arena.wins, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&arena.losses, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < RACERS; i++)
      arena.told[i] = (XRayLogInitStatus)-1;
    pthread_barrier_wait(&arena.go);
    pthread_barrier_wait(&arena.done);
    assert_int_equal(__atomic_load_n(&arena.wins, __ATOMIC_RELAXED), 1);
    assert_int_equal(__atomic_load_n(&arena.losses, __ATOMIC_RELAXED),
                     RACERS - 1);
    assert_int_equal(xr_lifecycle_status(&arena.lc), after);
    /* The winner was told the transient state it moved to; so were the
     * losers (flush tells nothing). */
    for (int i = 0; i < RACERS; i++)
      assert_int_equal(arena.told[i], losers_told);
  }
  for (int i = 0; i < RACERS; i++)
    pthread_join(t[i], NULL);
  pthread_barrier_destroy(&arena.go);
  pthread_barrier_destroy(&arena.done);
}

static void one_of_many_inits_wins(void **state) {
  (void)state;
  race(RACE_INIT, AT_UNINIT, XRAY_LOG_INITIALIZING, XRAY_LOG_INITIALIZING);
}

static void one_of_many_finalizes_wins(void **state) {
  (void)state;
  race(RACE_FINALIZE, AT_INIT, XRAY_LOG_FINALIZING, XRAY_LOG_FINALIZING);
}

static void one_of_many_flushes_wins(void **state) {
  (void)state;
  race(RACE_FLUSH, AT_FINAL, (XRayLogInitStatus)-1, XRAY_LOG_FINALIZED);
}

/* ---- owner, exit wait, fork child -------------------------------------- */

/* Brings lc to `at` from another thread, which then ends (its transition,
 * if any, is left running: its owner is gone, as in a fork child). */
static struct xr_lifecycle *other_lc;
static enum at other_at;
static void *reach_and_leave(void *arg) {
  (void)arg;
  reach(other_lc, other_at);
  return NULL;
}
static void reach_from_other_thread(struct xr_lifecycle *lc, enum at at) {
  pthread_t t;
  other_lc = lc;
  other_at = at;
  assert_int_equal(pthread_create(&t, NULL, reach_and_leave, NULL), 0);
  assert_int_equal(pthread_join(t, NULL), 0);
}

static void transition_and_owner_in_each_state(void **state) {
  (void)state;
  for (int at = 0; at < AT_COUNT; at++) {
    struct xr_lifecycle lc;
    bool mine = false;
    reach(&lc, (enum at)at);
    assert_int_equal(xr_lifecycle_transition(&lc, &mine), inside[at]);
    assert_int_equal(mine, inside[at] != XR_NO_TRANSITION);
    reach_from_other_thread(&lc, (enum at)at);
    mine = true;
    assert_int_equal(xr_lifecycle_transition(&lc, &mine), inside[at]);
    assert_false(mine);
  }
}

/* The exit policy's wait: never for the caller's own transition, at once
 * for a settled state, and until the budget is spent for another thread's
 * that never ends. */
static void exit_wait_in_each_state(void **state) {
  (void)state;
  for (int at = 0; at < AT_COUNT; at++) {
    struct xr_lifecycle lc;
    unsigned budget = 3;
    reach(&lc, (enum at)at);
    assert_true(xr_lifecycle_wait_others(&lc, &budget));
    assert_int_equal(budget, 3);
    reach_from_other_thread(&lc, (enum at)at);
    bool settled = inside[at] == XR_NO_TRANSITION;
    assert_int_equal(xr_lifecycle_wait_others(&lc, &budget), settled);
    assert_int_equal(budget, settled ? 3 : 0);
    assert_int_equal(xr_lifecycle_status(&lc), shown[at]); /* untouched */
  }
}

/* The wait ends when the other thread's transition does (whenever that is:
 * the budget is far longer than the test). */
static void exit_wait_ends_with_the_transition(void **state) {
  (void)state;
  for (size_t i = 0; i < 3; i++) {
    pthread_t t = start_holding(transient[i]);
    pthread_barrier_wait(&held.release); /* it ends while we wait */
    unsigned budget = 600000;
    assert_true(xr_lifecycle_wait_others(&held.lc, &budget));
    assert_int_equal(xr_lifecycle_status(&held.lc), after[i]);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_barrier_destroy(&held.inside);
    pthread_barrier_destroy(&held.release);
  }
}

/* after_fork in every state: the caller's own transition and a settled
 * state are kept; another thread's transition is dropped, the state is
 * UNINITIALIZED and init may start again. */
static void after_fork_in_each_state(void **state) {
  (void)state;
  for (int at = 0; at < AT_COUNT; at++) {
    struct xr_lifecycle lc;
    XRayLogInitStatus now;
    reach(&lc, (enum at)at);
    assert_int_equal(xr_lifecycle_after_fork(&lc), XR_NO_TRANSITION);
    assert_int_equal(xr_lifecycle_status(&lc), shown[at]);
    reach_from_other_thread(&lc, (enum at)at);
    assert_int_equal(xr_lifecycle_after_fork(&lc), inside[at]);
    bool dropped = inside[at] != XR_NO_TRANSITION;
    assert_int_equal(xr_lifecycle_status(&lc),
                     dropped ? XRAY_LOG_UNINITIALIZED : shown[at]);
    if (dropped)
      assert_true(xr_lifecycle_begin_init(&lc, &now));
  }
}

/* Forks while another thread is inside each transition: the child (where
 * that thread does not exist) is not stuck; the parent's thread ends its
 * transition as if nothing happened. Then the same with the forking thread
 * inside: the child keeps it and ends it. */
static int child_after_fork(struct xr_lifecycle *lc, enum xr_transition want,
                            enum at at) {
  XRayLogInitStatus now;
  if (xr_lifecycle_after_fork(lc) != want)
    return 1;
  if (want != XR_NO_TRANSITION)
    return xr_lifecycle_status(lc) == XRAY_LOG_UNINITIALIZED &&
                   xr_lifecycle_begin_init(lc, &now) &&
                   xr_lifecycle_end_init(lc, true) == XRAY_LOG_INITIALIZED
               ? 0 : 2;
  if (xr_lifecycle_status(lc) != shown[at])
    return 3;
  bool mine;
  return xr_lifecycle_transition(lc, &mine) == inside[at] && mine ? 0 : 4;
}

static int fork_and_check(struct xr_lifecycle *lc, enum xr_transition want,
                          enum at at) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_after_fork(lc, want, at));
  int status = -1;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void fork_inside_a_transition(void **state) {
  (void)state;
  for (size_t i = 0; i < 3; i++) {
    pthread_t t = start_holding(transient[i]);
    assert_int_equal(fork_and_check(&held.lc, inside[transient[i]],
                                    transient[i]), 0);
    assert_int_equal(xr_lifecycle_status(&held.lc), shown[transient[i]]);
    stop_holding(t);
    assert_int_equal(xr_lifecycle_status(&held.lc), after[i]);

    struct xr_lifecycle own;
    reach(&own, transient[i]);
    assert_int_equal(fork_and_check(&own, XR_NO_TRANSITION, transient[i]), 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(one_cycle_then_another),
      cmocka_unit_test(failed_init_goes_back),
      cmocka_unit_test(each_call_in_each_state),
      cmocka_unit_test(one_of_many_inits_wins),
      cmocka_unit_test(one_of_many_finalizes_wins),
      cmocka_unit_test(one_of_many_flushes_wins),
      cmocka_unit_test(transition_and_owner_in_each_state),
      cmocka_unit_test(exit_wait_in_each_state),
      cmocka_unit_test(exit_wait_ends_with_the_transition),
      cmocka_unit_test(after_fork_in_each_state),
      cmocka_unit_test(fork_inside_a_transition),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
