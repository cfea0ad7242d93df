/* The one thread registry: the list a mode keeps of its recording threads'
 * per-thread records, to reach every thread at finalize and flush. A
 * thread is added at its first event (slow path) and removed by its
 * thread-exit hook; in a fork child only the forking thread survives. The
 * caller holds its lock (core/thread/lock.h) around every call and walk, taken
 * with xr_thread_list_lock. Intrusive, so it never allocates. The records
 * are in initial-exec TLS, except FDR's: other threads reach those without
 * the lock, after their thread may have exited, so they live in memory
 * never unmapped (lib/fdr/buffer_queue.c). */
#ifndef XR_THREAD_LIST_H
#define XR_THREAD_LIST_H

#include "core/base/common.h"
#include "core/thread/lock.h"
#include "core/thread/thread.h"

struct xr_thread_link {
  struct xr_thread_link *next, *prev;
  bool registered;
};

struct xr_thread_list {
  struct xr_thread_link *head;
};

/* The record that holds `link` as its member `member`. */
#define xr_thread_entry(link, type, member)                                    \
  ((type *)((char *)(link) - offsetof(type, member)))

static inline void xr_thread_list_add(struct xr_thread_list *l,
                                      struct xr_thread_link *n) {
  n->prev = NULL;
  n->next = l->head;
  if (l->head != NULL)
    l->head->prev = n;
  l->head = n;
  n->registered = true;
}

/* Does nothing for a link that is not on the list. */
static inline void xr_thread_list_remove(struct xr_thread_list *l,
                                         struct xr_thread_link *n) {
  if (!n->registered)
    return;
  if (n->prev != NULL)
    n->prev->next = n->next;
  else
    l->head = n->next;
  if (n->next != NULL)
    n->next->prev = n->prev;
  n->next = n->prev = NULL;
  n->registered = false;
}

/* Takes the list's lock with the caller's xr_in_handler set; returns the
 * guard's old value for xr_thread_list_unlock. The first event of a thread
 * takes the lock (to register it) on a slow path that checks the guard
 * first; so a signal handler landing on the holder's thread, whose first
 * event would otherwise wait for ever on a lock its own thread holds, has
 * that event dropped, and its _exit skips the exit flush, which may take
 * the lock too (core/modes/exit_hook.c). */
static inline uint8_t xr_thread_list_lock(xr_lock *l) {
  uint8_t was = xr_guard_enter(); /* set before the lock is held */
  xr_lock_take(l);
  return was;
}

static inline void xr_thread_list_unlock(xr_lock *l, uint8_t was) {
  xr_lock_release(l);
  xr_guard_leave(was);
}

/* In a fork child: the list holds the forking thread alone, if it was on
 * it (the other records belong to threads that did not survive). */
static inline void xr_thread_list_after_fork(struct xr_thread_list *l,
                                             struct xr_thread_link *self) {
  l->head = NULL;
  if (self->registered)
    xr_thread_list_add(l, self);
}

#endif
