/* The readers of the SPEC's tables and their guards (args_readers.h). */
#include "args/args_readers.h"

#include "core/thread/quiesce.h"

XR_TLS struct xr_args_reader xr_args_me;

static struct xr_thread_list readers;
static xr_lock readers_lock;
static int set_up; /* 1 once the hooks are registered */

bool xr_args_reader_join(void) {
  struct xr_args_reader *me = &xr_args_me;
  if (me->state == XR_ARGS_READER_GONE ||
      !__atomic_load_n(&set_up, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED))
    return false;
  xr_thread_arm(); /* the exit hook below runs when this thread ends */
  uint8_t was = xr_thread_list_lock(&readers_lock);
  xr_thread_list_add(&readers, &me->link);
  me->state = XR_ARGS_READER_ON;
  xr_thread_list_unlock(&readers_lock, was);
  return true;
}

/* Thread exit (the guard is set): off the list, for good, before the
 * thread's memory goes. */
static void reader_exit(void) {
  uint8_t was = xr_thread_list_lock(&readers_lock);
  xr_thread_list_remove(&readers, &xr_args_me.link);
  xr_args_me.state = XR_ARGS_READER_GONE;
  xr_thread_list_unlock(&readers_lock, was);
}

/* Fork child: the other threads' records are gone with them; the lock
 * may have been held by one of them. The forking thread's own guard stays
 * as it is (a signal handler that forked inside a read returns to it). */
static void readers_after_fork(void) {
  xr_lock_after_fork(&readers_lock);
  xr_thread_list_after_fork(&readers, &xr_args_me.link);
}

bool xr_args_readers_setup(void) {
  if (__atomic_load_n(&set_up, __ATOMIC_ACQUIRE))
    return true;
  if (xr_thread_on_exit(reader_exit) != 0 || xr_thread_on_fork_child(readers_after_fork) != 0)
    return false;
  __atomic_store_n(&set_up, 1, __ATOMIC_RELEASE);
  return true;
}

bool xr_args_readers_quiesce(void) {
  xr_quiesce_fence();
  uint64_t deadline = xr_quiesce_deadline((uint64_t)XR_QUIESCE_BOUND_DEFAULT_MS * 1000000u);
  bool all = true;
  uint8_t was = xr_thread_list_lock(&readers_lock);
  for (struct xr_thread_link *l = readers.head; l != NULL && all; l = l->next) {
    struct xr_args_reader *r = xr_thread_entry(l, struct xr_args_reader, link);
    unsigned steps = 0;
    while (__atomic_load_n(&r->busy, __ATOMIC_ACQUIRE))
      if (!xr_quiesce_wait_step(&steps, deadline)) {
        all = false;
        break;
      }
  }
  xr_thread_list_unlock(&readers_lock, was);
  return all;
}
