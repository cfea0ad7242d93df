/* Collector: where each thread's call trie lives while it records, and how
 * tries reach the mode at finalize.
 *
 * A thread makes its trie at its first event of a profiling session
 * (generation). It hands the trie over ("posts" it) at thread exit, or at its
 * first event after finalize. Finalize posts the caller's trie and adopts the
 * tries of threads that are alive but idle (not inside a handler), so a
 * thread blocked at exit still counts. Open calls of a posted trie are
 * closed at the time of posting.
 *
 * Hand-over at finalize: the handler sets its xr_in_handler guard before it
 * reads the session and clears it (release) after its last trie access; the
 * collector ends the session, fences every thread (membarrier), then reads
 * the guards (xr_prof_end_session, xr_prof_collect).
 *
 * Locking: one spin lock guards the thread registry and the posted list; it
 * is taken only on slow paths (first event of a thread, thread exit,
 * finalize), always with the caller's xr_in_handler set, so a signal handler
 * on the same thread never re-enters it. */
#ifndef XR_PROFILING_COLLECTOR_H
#define XR_PROFILING_COLLECTOR_H

#include "core/thread/thread_list.h"
#include "profiling/call_trie.h"

#define XR_PROF_NO_GEN UINT32_MAX

/* Per-thread state, in initial-exec TLS. */
struct xr_prof_thread {
  struct xr_trie *trie;  /* owned by this thread until posted or adopted */
  uint32_t gen_tag;      /* == xr_prof_active_gen iff trie is usable now */
  uint32_t trie_gen;     /* generation of trie (read without touching it) */
  uint32_t failed_gen;   /* generation in which making a trie failed */
  uint8_t *in_handler;   /* this thread's xr_in_handler, for the collector */
  struct xr_thread_link link; /* registry, under the lock */
};
XR_HIDDEN extern XR_TLS struct xr_prof_thread xr_prof_tls;

/* Generation being recorded; 0 when no session records. Written by the mode
 * glue (release), read by the handlers (relaxed: a stale value sends the
 * thread to the slow path, which re-reads it with acquire). */
XR_HIDDEN extern uint32_t xr_prof_active_gen;

/* Sets the parameters of the next session's tries. Called by init while no
 * session records (xr_prof_active_gen == 0), before it publishes the new
 * generation. A thread of an earlier session may still be reading the old
 * ones (it stopped inside its slow path past finalize's grace period): it
 * finds the generation changed and makes no trie (make_trie). */
XR_HIDDEN void xr_prof_set_trie_config(const struct xr_trie_config *c);

/* Events lost because a thread could not get a trie (no memory). */
XR_HIDDEN extern uint64_t xr_prof_lost_events;
/* Events dropped because the thread was already inside the handler. */
XR_HIDDEN extern uint64_t xr_prof_nested_drops;

/* Slow path of the handlers (arg: the thread's struct xr_prof_thread), run
 * through xr_call_preserving_vectors: posts a trie of an ended session and
 * makes one for the active session. Afterwards gen_tag == active gen iff the
 * thread can record. */
XR_HIDDEN void xr_prof_thread_refresh(void *arg);

/* Registers the thread-exit and fork hooks and this process for expedited
 * membarrier (idempotent). `grow` is what the tries made for the handlers
 * grow with (profiling_lean.c's lean arena growth, given by the mode: the
 * collector is below the lean file and names nothing of it). */
XR_HIDDEN void xr_prof_collector_setup(xr_trie_grow_fn grow);

/* Frees tries of ended sessions still held by the collector. */
XR_HIDDEN void xr_prof_collector_reset(void);

/* Ends the recording session (xr_prof_active_gen := 0) and makes every
 * thread execute a full memory barrier (membarrier), so that afterwards a
 * thread whose xr_in_handler reads clear (acquire) is done with its trie for
 * good (without membarrier: a fence and core's pause). The ordering
 * argument is in core/thread/quiesce.h. */
XR_HIDDEN void xr_prof_end_session(void);

/* Finalize's part, after xr_prof_end_session: posts the calling thread's
 * trie, adopts idle threads' tries of generation gen (waiting up to
 * timeout_ns, the mode's quiesce bound, for threads inside a handler), and
 * returns the posted tries of gen in *out (array owned by the collector,
 * valid until xr_prof_collector_reset). *not_collected counts threads that
 * were still busy at the bound and could not be adopted. */
XR_HIDDEN size_t xr_prof_collect(uint32_t gen, uint64_t timeout_ns, struct xr_trie ***out,
                                 uint64_t *not_collected);

#endif
