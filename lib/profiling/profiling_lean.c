/* The profiling handlers: the per-event path of xray-profiling.
 *
 * A lean translation unit (core/base/lean.h): the trampolines
 * save only general registers for lean handlers, so nothing here may touch a
 * vector or x87 register or call libc. Slow paths (a thread's first event,
 * the session ending, a new arena chunk) go through
 * xr_call_preserving_vectors into ordinary code.
 *
 * Budget per event, steady state (about 40 instructions, two callee-saved
 * pushes): one TLS guard load and two stores, one load and compare of the
 * clock kind, one tick read, one TLS load and one global load and compare
 * (session still recording), then
 *   entry: compares for depth, overflow and abandoned frames, one child-cache
 *          probe (a hash, two loads, two compares), four stores of the frame;
 *   exit:  a compare of the top frame's id, count++ / time += / histogram++.
 * Everything else (first event of a thread, a new node, unmatched exits,
 * limits) is one tail call to slow_event.
 * No atomic read-modify-write, no fence, no lock, no system call: the
 * guard's accesses below are __atomic only so that the hand-over to the
 * collector is data-race free; on x86 they are the same plain moves.
 *
 * Hand-over protocol with the collector (finalize takes idle threads'
 * tries; the collector's side and the full argument are in
 * profiling_collector.c, end_session_and_fence):
 *   1. guard_enter: store xr_in_handler = 1 (relaxed), compiler barrier;
 *   2. only then read the session (xr_prof_active_gen) and, if it is still
 *      the thread's, use the trie;
 *   3. guard_leave: store xr_in_handler = 0 with release, after the last
 *      access to the trie.
 * The collector ends the session, makes every thread execute a full fence
 * (membarrier), then reads each guard with acquire: a clear guard means the
 * thread's earlier events are visible to it (3) and its later events see the
 * session ended (1-2), so the trie is no longer touched by its thread. */
#include "core/base/lean.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/dispatch/handlers.h"
#include "core/thread/thread.h"
#include "profiling/call_trie.h"
#include "profiling/profiling_collector.h"
#include "profiling/profiling_lean.h"
#include "xray/xray_interface.h"

static XR_ALWAYS_INLINE void guard_enter(void) {
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  /* The session is read after this store in program order; the collector's
   * membarrier supplies the store-load fence at the moment it matters. */
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static XR_ALWAYS_INLINE void guard_leave(void) {
  /* Release: the trie's updates are visible before the guard reads clear. */
  __atomic_store_n(&xr_in_handler, 0, __ATOMIC_RELEASE);
}

/* The guard, or false when this thread is already inside the handler (a
 * signal handler ran instrumented code meanwhile): the event is dropped,
 * and counted. Rare: one locked add. */
static XR_ALWAYS_INLINE bool enter_handler(void) {
  if (__atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED) != 0) {
    __atomic_fetch_add(&xr_prof_nested_drops, 1, __ATOMIC_RELAXED);
    return false;
  }
  guard_enter();
  return true;
}

static void grow_cb(void *t) { xr_trie_add_chunk(t); }

XR_HIDDEN int xr_prof_lean_grow(struct xr_trie *t) {
  xr_call_preserving_vectors(grow_cb, t);
  return t->grow_failed ? -1 : 0;
}

/* Returns true when the thread may record now. */
static XR_NOINLINE bool refresh(struct xr_prof_thread *p) {
  /* Nothing to post and nothing recording: drop without the costly call. */
  if (__atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED) == 0 &&
      __atomic_load_n(&p->trie, __ATOMIC_RELAXED) == NULL)
    return false;
  xr_call_preserving_vectors(xr_prof_thread_refresh, p);
  return p->gen_tag != XR_PROF_NO_GEN;
}

/* Any event the fast path below does not finish: reads the clock if needed
 * (now == 0), handles the session changing, abandoned frames, new nodes,
 * unmatched exits, limits, with the general trie operations; then leaves
 * the handler. Called only in tail position, so the fast path keeps no value
 * across a call and saves no register. */
static XR_NOINLINE void slow_event(int32_t id, XRayEntryType type, uintptr_t sp,
                                   uint64_t now) {
  if (now == 0)
    now = xr_now(); /* lean-safe: its fallback saves vectors */
  struct xr_prof_thread *p = &xr_prof_tls;
  if (p->gen_tag != __atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED) &&
      !refresh(p))
    goto out;
  struct xr_trie *t = __atomic_load_n(&p->trie, __ATOMIC_RELAXED);
  if (type == ENTRY || type == LOG_ARGS_ENTRY)
    xr_trie_enter(t, id, now, sp);
  else if (type == EXIT || type == TAIL)
    xr_trie_exit(t, id, now, sp);
out:
  guard_leave();
}

/* The handler for entry, exit, tail exit and arg-logging entry (type 3),
 * with the sled's stack pointer (core/dispatch/handlers.h).
 *
 * Fast path: the common case of xr_trie_enter / xr_trie_exit (the node is in
 * the child cache; the exit matches the top frame), written out so that
 * every other case is one tail call to slow_event. */
XR_HIDDEN void xr_prof_handle_arg0(int32_t id, XRayEntryType type, uintptr_t sp) {
  if (XR_UNLIKELY(!enter_handler()))
    return;
  if (XR_UNLIKELY(!xr_clock.using_ticks)) {
    slow_event(id, type, sp, 0);
    return;
  }
  uint64_t now = xr_read_ticks();
  struct xr_prof_thread *p = &xr_prof_tls;
  if (XR_UNLIKELY(p->gen_tag !=
                  __atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED))) {
    slow_event(id, type, sp, now);
    return;
  }
  /* Owned by this thread while the session is its own (see above). */
  struct xr_trie *t = __atomic_load_n(&p->trie, __ATOMIC_RELAXED);
  uint32_t d = t->depth;
  if (type == ENTRY || type == LOG_ARGS_ENTRY) {
    if (XR_UNLIKELY(d >= t->stack_capacity || t->overflow != 0)) {
      slow_event(id, type, sp, now);
      return;
    }
    /* The frame below is stack[d - 1], formed only when d > 0 (a pointer
     * before the array would be undefined, even unused). */
    struct xr_trie_node *parent = &t->root;
    if (d > 0) {
      const struct xr_trie_frame *top = &t->stack[d - 1];
      if (XR_UNLIKELY(top->sp <= sp || top->node == NULL)) {
        slow_event(id, type, sp, now);
        return;
      }
      parent = top->node;
    }
    struct xr_trie_frame *f = &t->stack[d];
    struct xr_trie_cache_entry *c = &t->cache[xr_trie_cache_slot(parent, id)];
    if (XR_UNLIKELY(c->parent != parent || c->child->fid != id)) {
      slow_event(id, type, sp, now);
      return;
    }
    f->node = c->child;
    f->fid = id;
    f->entry_time = now;
    f->sp = sp;
    t->depth = d + 1;
  } else if (type == EXIT || type == TAIL) {
    if (XR_UNLIKELY(t->overflow != 0 || d == 0)) {
      slow_event(id, type, sp, now);
      return;
    }
    struct xr_trie_frame *top = &t->stack[d - 1];
    if (XR_UNLIKELY(top->sp != sp || top->fid != id || top->node == NULL)) {
      slow_event(id, type, sp, now);
      return;
    }
    t->depth = d - 1;
    xr_trie_record_call(top->node, now - top->entry_time);
  }
  guard_leave();
}

/* The same for callers that cannot pass the stack pointer: the one the
 * event stands for (xr_trie_implied_sp), read once the thread's trie is
 * its own. Not the common path: every such event takes slow_event. */
XR_HIDDEN void xr_prof_handle_arg0_no_sp(int32_t id, XRayEntryType type) {
  if (XR_UNLIKELY(!enter_handler()))
    return;
  struct xr_prof_thread *p = &xr_prof_tls;
  bool exit = type == EXIT || type == TAIL;
  uintptr_t sp = exit ? 0 : UINTPTR_MAX; /* a new session's empty trie */
  if (p->gen_tag == __atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED))
    sp = xr_trie_implied_sp(__atomic_load_n(&p->trie, __ATOMIC_RELAXED), id, exit);
  slow_event(id, type, sp, 0);
}
