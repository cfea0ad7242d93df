/* The one thread registry: the list a mode keeps of its recording threads'
 * per-thread records (initial-exec TLS), to reach every thread at flush.
 * A thread is added at its first event (slow path) and removed by its
 * thread-exit hook; in a fork child only the forking thread survives. The
 * caller holds its lock (core/lock.h) around every call and walk. Intrusive,
 * so it never allocates. */
#ifndef XR_THREAD_LIST_H
#define XR_THREAD_LIST_H

#include "common.h"

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

/* In a fork child: the list holds the forking thread alone, if it was on
 * it (the other records belong to threads that did not survive). */
static inline void xr_thread_list_after_fork(struct xr_thread_list *l,
                                             struct xr_thread_link *self) {
  l->head = NULL;
  if (self->registered)
    xr_thread_list_add(l, self);
}

#endif
