/* The runtime's cold-path mutexes, kept usable in a fork child.
 *
 * Each is taken by the forking thread before fork() (pthread_atfork
 * prepare) so no other thread is inside one when the process is copied,
 * and is free again in both processes after it. The ids are the lock
 * order: code that holds two takes the lower id first, and prepare takes
 * them in that order. fork_locks.c says what happens when the forking
 * thread already holds one (a signal handler or a callback forked). */
#ifndef XR_FORK_LOCKS_H
#define XR_FORK_LOCKS_H

#include "core/base/common.h"

#include <stdbool.h>

enum xr_fork_lock {
  XR_LOCK_REGISTRY,    /* log_registry.c: the mode registry and selection */
  XR_LOCK_OBJECTS,     /* objects.c: the object registry, held while patching */
  XR_LOCK_INSTALL,     /* handlers.c: handler slots and dispatch (inside both above) */
  XR_LOCK_EVENT_TYPES, /* handlers.c: __xray_register_event_type's table */
  XR_LOCK_HOOKS,       /* thread.c: the thread-exit and fork-child hook lists */
  XR_FORK_LOCK_COUNT
};

XR_HIDDEN void xr_fork_lock_take(enum xr_fork_lock id);
XR_HIDDEN void xr_fork_lock_release(enum xr_fork_lock id);
/* Whether the calling thread holds lock id (in a fork child: held by the
 * thread that forked, before the fork). */
XR_HIDDEN bool xr_fork_lock_held_here(enum xr_fork_lock id);
/* Not a mutex: the calling thread builds a name table, which other threads
 * (some under XR_LOCK_OBJECTS) wait for (names.c). While on, a fork from
 * this thread only tries the locks, as when it holds one. */
XR_HIDDEN void xr_fork_note_loading(bool on);
/* Registers the fork handlers; once, at start-up (thread.c), before any
 * other fork-child hook so that the hooks find the locks free. */
XR_HIDDEN void xr_fork_locks_setup(void);

#endif
