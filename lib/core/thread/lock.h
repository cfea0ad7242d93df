/* The one spin lock of the runtime's cold paths (thread lists, writers, the names arena, the exited threads' names). A spin lock that yields, not a pthread mutex: it needs no
 * initialisation call and no allocation, a fork child resets it with one
 * store (xr_lock_after_fork: its holder, if any, did not survive the fork),
 * and it is taken behind a vector save from lean handlers' slow paths, where
 * it is held only for short, bounded work. Never taken on a hot path.
 * (Core's own mutexes, which a fork waits for, are in fork_locks.h.) */
#ifndef XR_LOCK_H
#define XR_LOCK_H

#include <sched.h>

typedef struct {
  int held;
} xr_lock;

static inline void xr_lock_take(xr_lock *l) {
  while (__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&l->held, __ATOMIC_RELAXED))
      sched_yield();
}

static inline void xr_lock_release(xr_lock *l) {
  __atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

/* For a fork child that must know whether a lost holder left work half
 * done. */
static inline int xr_lock_is_held(xr_lock *l) {
  return __atomic_load_n(&l->held, __ATOMIC_RELAXED);
}

/* In a fork child: only the forking thread lives on, so no one holds it. */
static inline void xr_lock_after_fork(xr_lock *l) {
  __atomic_store_n(&l->held, 0, __ATOMIC_RELAXED);
}

#endif
