/* The profiling handlers: the per-event path of xray-profiling.
 *
 * Compiled with -mgeneral-regs-only (file name *_hot.c): the trampolines
 * save only general registers for lean handlers, so nothing here may touch a
 * vector or x87 register or call libc. Slow paths (a thread's first event,
 * the session ending, a new arena chunk) go through
 * xr_call_preserving_vectors into ordinary code.
 *
 * Budget per event, steady state: one TLS guard load and two stores, one
 * global load and compare (session still recording), one rdtsc, then
 *   entry: a compare for abandoned frames, one cache probe (two loads, two
 *          compares) to find the child node, four stores of the frame;
 *   exit:  a compare of the top frame's id, count++ / time += / histogram++.
 * No atomic read-modify-write, no lock, no system call. */
#include "core/clock.h"
#include "core/thread.h"
#include "profiling/call_trie.h"
#include "profiling/profiling_collector.h"
#include "core/handlers.h"
#include "xray/xray_interface.h"

static void grow_cb(void *t) { xr_trie_add_chunk(t); }

/* xr_now() without a usable TSC calls clock_gettime through ordinary code,
 * which may use vector registers: keep that call behind the vector save. */
static void fallback_now_cb(void *out) { *(uint64_t *)out = xr_clock_fallback_now(); }
static XR_ALWAYS_INLINE uint64_t lean_now(void) {
  if (XR_LIKELY(xr_clock.using_tsc)) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
  }
  uint64_t t;
  xr_call_preserving_vectors(fallback_now_cb, &t);
  return t;
}

int xr_prof_lean_grow(struct xr_trie *t) {
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

/* sp: a stack address at a fixed distance below the instrumented function's
 * frame. Entry and arg-logger trampolines push the same amount before calling
 * a lean handler, so one handler serves both and the distances agree. */
static XR_ALWAYS_INLINE void handle(int32_t id, XRayEntryType type,
                                    uintptr_t sp) {
  if (XR_UNLIKELY(xr_in_handler != 0))
    return;
  xr_in_handler = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  uint64_t now = lean_now();
  struct xr_prof_thread *p = &xr_prof_tls;
  if (XR_UNLIKELY(p->gen_tag !=
                  __atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED)) &&
      !refresh(p))
    goto out;
  struct xr_trie *t = p->trie;
  if (type == ENTRY || type == LOG_ARGS_ENTRY)
    xr_trie_enter(t, id, now, sp);
  else if (type == EXIT || type == TAIL)
    xr_trie_exit(t, id, now);
out:
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  xr_in_handler = 0;
}

XR_HIDDEN void xr_prof_handle_arg0(int32_t id, XRayEntryType type) {
  handle(id, type, (uintptr_t)__builtin_frame_address(0));
}
