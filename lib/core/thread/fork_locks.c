/* The cold-path mutexes of fork_locks.h and their fork handlers.
 *
 * A fork copies only the forking thread. A mutex another thread held at
 * that moment stays locked in the child for ever, and the data under it
 * may be half written (a sled half patched, an object half registered).
 * So prepare takes every lock, in lock order, before the copy: the
 * child's copy of each is then free and its data whole. The parent
 * releases them after fork() returns; the child re-initialises them.
 *
 * Prepare must never wait for something the forking thread itself holds:
 *   - a lock this thread already holds (fork from a signal handler that
 *     interrupted our code, or from a callback run under a lock) is left
 *     alone: waiting for it would wait for ourselves. In the child it stays
 *     held, as in the parent: the interrupted code goes on in the child when
 *     the handler returns, and releases it.
 *   - when this thread holds any lock, another thread holding a later one
 *     may be waiting for ours: waiting for that later lock could deadlock.
 *     The same holds while this thread builds a name table: a thread under
 *     the objects lock may wait for that table (xr_fork_note_loading).
 *     So then prepare only tries (trylock) each of the others. A lock it
 *     could not take is held by another thread, which does not exist in the
 *     child: the child re-initialises it (its data may be half updated;
 *     that only happens for a fork from a signal handler that interrupted
 *     the runtime, while another thread was in the runtime too).
 *   - a thread holding none of them can wait in lock order: every holder
 *     finishes its critical section without needing a lock prepare has
 *     taken (it takes locks in the same order), so the waits end.
 * Cost: two TLS read-modify-writes per take/release (cold paths only); a
 * fork waits for a patching call in progress to finish. Nothing on the
 * event path. */
#include "core/thread/fork_locks.h"

#include <pthread.h>

static pthread_mutex_t locks[XR_FORK_LOCK_COUNT] = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
_Static_assert(XR_FORK_LOCK_COUNT == 5, "one initializer per lock");

/* Bit i: this thread holds locks[i]. A signal handler that interrupts an
 * update of it takes and releases locks in pairs, so the word it leaves is
 * the one it found. */
static XR_TLS unsigned held_here;
enum { LOADING_BIT = 1u << 31 }; /* xr_fork_note_loading */
_Static_assert(XR_FORK_LOCK_COUNT < 31, "the bits fit");
/* Bit i: prepare took locks[i] on this thread (several threads may fork at
 * once, so not a global). */
static XR_TLS unsigned taken_for_fork;

void xr_fork_lock_take(enum xr_fork_lock id) {
  pthread_mutex_lock(&locks[id]);
  held_here |= 1u << id;
}

void xr_fork_lock_release(enum xr_fork_lock id) {
  held_here &= ~(1u << id);
  pthread_mutex_unlock(&locks[id]);
}

bool xr_fork_lock_held_here(enum xr_fork_lock id) { return (held_here >> id) & 1u; }

void xr_fork_note_loading(bool on) {
  if (on)
    held_here |= LOADING_BIT;
  else
    held_here &= ~LOADING_BIT;
}

static void prepare(void) {
  unsigned mine = held_here, taken = 0;
  for (int i = 0; i < XR_FORK_LOCK_COUNT; i++) {
    unsigned bit = 1u << i;
    if (mine & bit)
      continue; /* ours already: see the top of this file */
    if (mine == 0 ? pthread_mutex_lock(&locks[i]) == 0 : pthread_mutex_trylock(&locks[i]) == 0)
      taken |= bit;
  }
  taken_for_fork = taken;
}

static void parent(void) {
  unsigned taken = taken_for_fork;
  taken_for_fork = 0;
  for (int i = XR_FORK_LOCK_COUNT - 1; i >= 0; i--)
    if (taken & (1u << i))
      pthread_mutex_unlock(&locks[i]);
}

/* Every lock this thread did not hold before prepare is free in the child:
 * taken by prepare (data whole), free, or held by a thread that is gone. */
static void child(void) {
  taken_for_fork = 0;
  for (int i = 0; i < XR_FORK_LOCK_COUNT; i++)
    if (!(held_here & (1u << i)))
      pthread_mutex_init(&locks[i], NULL);
}

void xr_fork_locks_setup(void) { pthread_atfork(prepare, parent, child); }
