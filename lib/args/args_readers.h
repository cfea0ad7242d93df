/* Who may be reading the SPEC's tables (args_readers.c): a guard per
 * thread, so a table replaced by a new SPEC (or a slice by an object that
 * registers again) is freed only when no thread can still be reading it.
 * core/thread/quiesce.h's protocol, with the table pointer as the on/off
 * word:
 *   reader (the hook, per event): busy := 1 (relaxed) and a compiler
 *     barrier; load the table pointer (acquire) and read through it;
 *     busy := 0 (release);
 *   writer (a SPEC change): store the new pointer (seq_cst); then
 *     xr_args_readers_quiesce(): a membarrier and, per thread, a wait
 *     (bounded) while its busy reads 1. A thread whose busy reads 0 has
 *     left the old table, or will load the new pointer; so once every
 *     thread has been seen at 0, nothing reads the old table.
 * A thread joins the list at its first event (a slow path under the
 * list's lock) and leaves it at its exit; in a fork child the list holds
 * the forking thread alone. */
#ifndef XR_ARGS_READERS_H
#define XR_ARGS_READERS_H

#include "core/base/common.h"
#include "core/thread/thread_list.h"

enum { XR_ARGS_READER_NEW, XR_ARGS_READER_ON, XR_ARGS_READER_GONE };

struct xr_args_reader {
  uintptr_t busy;
  uint8_t state; /* XR_ARGS_READER_* */
  struct xr_thread_link link;
};
XR_HIDDEN extern XR_TLS struct xr_args_reader xr_args_me;

/* The slow path of xr_args_read_begin: joins the list. False when the
 * thread may not read now: it has exited (a destructor runs instrumented
 * code), or it is inside the runtime (xr_in_handler set: its own lock may
 * be the list's). */
XR_HIDDEN bool xr_args_reader_join(void);

/* Before a table is read. False: this thread may not read now (above). */
static inline bool xr_args_read_begin(void) {
  if (XR_UNLIKELY(xr_args_me.state != XR_ARGS_READER_ON) && !xr_args_reader_join())
    return false;
  __atomic_store_n(&xr_args_me.busy, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return true;
}

/* After it: nothing read through the table from here on. */
static inline void xr_args_read_end(void) {
  __atomic_store_n(&xr_args_me.busy, 0, __ATOMIC_RELEASE);
}

/* Registers the thread-exit and fork-child hooks; once, before the first
 * event can reach the hook (cold path). Returns false when a list of hooks
 * is full (the hook then reads no table: no value is captured). */
XR_HIDDEN bool xr_args_readers_setup(void);

/* The writer's side, after the new pointer is stored: true when every
 * thread was seen outside the tables within the quiesce bound
 * (core/thread/quiesce.h's default); false leaves the old tables to a
 * later try. Cold path. */
XR_HIDDEN bool xr_args_readers_quiesce(void);

#endif
