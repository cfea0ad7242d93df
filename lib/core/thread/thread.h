/* Per-thread facts every mode needs: cached ids, a re-entrancy guard, exit
 * and fork hooks. No system call on the hot path. */
#ifndef XR_THREAD_H
#define XR_THREAD_H

#include "core/base/common.h"
#include "arch/arch.h"

#include <pthread.h>

/* Cached gettid()/getpid(); 0 until first use on the thread. Refreshed in a
 * fork child. */
XR_HIDDEN extern XR_TLS int32_t xr_thread_tid_cache;
XR_HIDDEN extern int32_t xr_process_pid_cache;
XR_HIDDEN int32_t xr_thread_tid_slow(void);
XR_HIDDEN int32_t xr_process_pid_slow(void);

static XR_ALWAYS_INLINE int32_t xr_tid(void) {
  int32_t t = xr_thread_tid_cache;
  return XR_LIKELY(t != 0) ? t : xr_thread_tid_slow();
}
static XR_ALWAYS_INLINE int32_t xr_pid(void) {
  int32_t p = __atomic_load_n(&xr_process_pid_cache, __ATOMIC_RELAXED);
  return XR_LIKELY(p != 0) ? p : xr_process_pid_slow();
}

/* Set in a fork child (and its children): what the parent's other threads
 * held at the fork may still be held here. */
XR_HIDDEN extern bool xr_process_forked;

/* Per-thread re-entrancy guard shared by all handlers: a handler that finds it
 * set drops the event (a signal handler running instrumented code while the
 * thread is inside a handler, or a handler calling instrumented code). */
XR_HIDDEN extern XR_TLS uint8_t xr_in_handler;
/* Every access to it is __atomic (relaxed or stronger): the profiling
 * collector reads other threads' guards, and a plain access racing with
 * that is a data race by C11's letter. On x86 both are the same move. */

/* The cold paths' side of the guard (a mode's init, finalize and flush,
 * thread-exit hooks, a thread list's lock): sets it, so the thread's own
 * handlers, a signal handler's included, drop their events meanwhile, and
 * returns its old value for xr_guard_leave (these paths nest). The
 * compiler barriers keep the guarded work between the two. */
static inline uint8_t xr_guard_enter(void) {
  uint8_t was = __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return was;
}
static inline void xr_guard_leave(uint8_t was) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(&xr_in_handler, was, __ATOMIC_RELEASE);
}

/* A guard bit in a word one thread owns and others only read: sets the top
 * bit (63) of *word and says whether it was set already, in one step that
 * a signal handler on this thread cannot split (it runs wholly before or
 * after). No fence, and not atomic against other writers: only the owner
 * may call it. Also a compiler barrier. Bit 63 is free in every address
 * Linux gives user space on both ports: user space is the lower half
 * (x86-64: below 2^47, 2^56 with 5-level paging; AArch64: below 2^52), and
 * mmap returns no AArch64 top-byte tag. */
static XR_ALWAYS_INLINE bool xr_owner_test_and_set_top_bit(uintptr_t *word) {
  return xr_arch_test_and_set_top_bit(word);
}

/* The CPU's pause, for a spin-wait on another thread (cheaper for the
 * sibling hardware thread than a bare loop). */
static inline void xr_spin_pause(void) { xr_arch_pause(); }

/* Room for each list of hooks below: the runtime registers 7 fork hooks
 * and 3 exit hooks of its own (one per mode and per core part that keeps
 * state), with room for the next parts. */
enum { XR_THREAD_HOOKS_MAX = 16 };

/* Thread-exit hooks: a mode registers a callback once (at init); a thread
 * that owns mode state calls xr_thread_arm() (cheap after the first call) so
 * the callbacks run when it exits. Callbacks run with xr_in_handler set. Up to
 * XR_THREAD_HOOKS_MAX callbacks; returns 0 or -1 when full. */
XR_HIDDEN int xr_thread_on_exit(void (*callback)(void));
XR_HIDDEN void xr_thread_arm(void);
/* Creates the thread-exit key and the fork hook; idempotent. Called first
 * thing at start-up (init.c), so that xr_thread_arm() is async-signal-safe
 * (thread.c says why). */
XR_HIDDEN void xr_thread_setup(void);

/* Fork hooks, run in the child after the id caches are refreshed. Up to
 * XR_THREAD_HOOKS_MAX; returns 0 or -1 when full. */
XR_HIDDEN int xr_thread_on_fork_child(void (*callback)(void));

/* Starts one of the runtime's own threads (control, FDR's helpers), born
 * with every signal blocked, so that the program's signals (a snapshot
 * signal, a timer, a crash sent by kill) never land in it; detached, or
 * joinable through *joinable when it is not NULL; body gets arg. Returns
 * pthread_create's error number (0: started). */
XR_HIDDEN int xr_thread_start_own(void *(*body)(void *), void *arg,
                                  pthread_t *joinable);

#endif
