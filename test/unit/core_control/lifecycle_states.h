/* The lifecycle's states as the unit tests reach them (lifecycle_test.c,
 * lifecycle_signal_test.c): through the API only, from a fresh lifecycle;
 * and a thread held inside a transition until the test releases it. */
#ifndef CORE_CONTROL_LIFECYCLE_STATES_H
#define CORE_CONTROL_LIFECYCLE_STATES_H

#include <pthread.h>

#include "core/modes/mode_lifecycle.h"

/* The states a caller can find, transient ones included. */
enum at { AT_UNINIT, AT_INITIALIZING, AT_INIT, AT_FINALIZING, AT_FINAL,
          AT_FLUSHING, AT_COUNT };

/* Brings a fresh lifecycle to `at` through the API only. */
static void reach(struct xr_lifecycle *lc, enum at at) {
  XRayLogInitStatus now;
  *lc = (struct xr_lifecycle)XR_LIFECYCLE_INITIAL;
  if (at == AT_UNINIT)
    return;
  assert_true(xr_lifecycle_begin_init(lc, &now));
  if (at == AT_INITIALIZING)
    return;
  assert_int_equal(xr_lifecycle_end_init(lc, true), XRAY_LOG_INITIALIZED);
  if (at == AT_INIT)
    return;
  assert_true(xr_lifecycle_begin_finalize(lc, &now));
  if (at == AT_FINALIZING)
    return;
  assert_int_equal(xr_lifecycle_end_finalize(lc), XRAY_LOG_FINALIZED);
  if (at == AT_FINAL)
    return;
  assert_true(xr_lifecycle_begin_flush(lc));
}

/* The status each state shows: a flush in progress shows FINALIZED. */
static const XRayLogInitStatus shown[AT_COUNT] = {
    XRAY_LOG_UNINITIALIZED, XRAY_LOG_INITIALIZING, XRAY_LOG_INITIALIZED,
    XRAY_LOG_FINALIZING,    XRAY_LOG_FINALIZED,    XRAY_LOG_FINALIZED};

/* The transition each state is inside (none for the settled ones). */
static const enum xr_transition inside[AT_COUNT] = {
    XR_NO_TRANSITION, XR_IN_INIT, XR_NO_TRANSITION,
    XR_IN_FINALIZE,   XR_NO_TRANSITION, XR_IN_FLUSH};

/* The transient states, the settled state each one begins from, and the
 * state its end leaves. */
static const enum at transient[] = {AT_INITIALIZING, AT_FINALIZING,
                                    AT_FLUSHING};
static const enum at before[] = {AT_UNINIT, AT_INIT, AT_FINAL};
static const XRayLogInitStatus after[] = {
    XRAY_LOG_INITIALIZED, XRAY_LOG_FINALIZED, XRAY_LOG_UNINITIALIZED};

/* The begin_* into transient state `to`: true when it won. */
static inline bool begin_transition(struct xr_lifecycle *lc, enum at to) {
  XRayLogInitStatus now;
  return to == AT_INITIALIZING ? xr_lifecycle_begin_init(lc, &now)
         : to == AT_FINALIZING ? xr_lifecycle_begin_finalize(lc, &now)
                               : xr_lifecycle_begin_flush(lc);
}

/* The end_* of transient state `at` (init ends well). */
static inline void end_transition(struct xr_lifecycle *lc, enum at at) {
  if (at == AT_INITIALIZING)
    xr_lifecycle_end_init(lc, true);
  else if (at == AT_FINALIZING)
    xr_lifecycle_end_finalize(lc);
  else
    xr_lifecycle_end_flush(lc);
}

/* A thread inside a transition, held there until released. */
static struct {
  struct xr_lifecycle lc;
  enum at at;
  pthread_barrier_t inside, release;
} held;

static void *hold_transition(void *arg) {
  (void)arg;
  reach(&held.lc, held.at);
  pthread_barrier_wait(&held.inside);
  pthread_barrier_wait(&held.release);
  end_transition(&held.lc, held.at);
  return NULL;
}

static pthread_t start_holding(enum at at) {
  pthread_t t;
  held.at = at;
  pthread_barrier_init(&held.inside, NULL, 2);
  pthread_barrier_init(&held.release, NULL, 2);
  assert_int_equal(pthread_create(&t, NULL, hold_transition, NULL), 0);
  pthread_barrier_wait(&held.inside);
  return t;
}

static void stop_holding(pthread_t t) {
  pthread_barrier_wait(&held.release);
  assert_int_equal(pthread_join(t, NULL), 0);
  pthread_barrier_destroy(&held.inside);
  pthread_barrier_destroy(&held.release);
}

#endif
