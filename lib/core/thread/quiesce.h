/* The one "no handler is in flight" protocol, used by every mode to stop
 * recording and then take the threads' buffers without a lock or a fence on
 * the hot path.
 *
 * A handler (lean, per event):
 *   1. guard := 1 (relaxed store) and a compiler barrier;
 *   2. read the mode's on/off word; if off, back out (guard := 0);
 *   3. use its per-thread state; guard := 0 with a release store.
 * A controller (finalize, flush):
 *   a. turn the word off (seq_cst);
 *   b. xr_quiesce_fence();
 *   c. per thread: wait (bounded, xr_quiesce_wait_step) while its guard
 *      reads 1 (acquire); a guard read 0 means that thread's earlier events
 *      are visible here and its later ones see the word off.
 *
 * Ordering argument. 1 then 2 is a store followed by a load, which the CPU
 * may reorder (a store buffer) and which the handler pays no fence to order.
 * membarrier(2) returns only after every thread of the process that was
 * running has executed a full memory barrier F, and a thread not running
 * passes one at its next context switch; the kernel orders a. before it. So
 * for any event E: if E's guard := 1 precedes F, it is visible to c., which
 * reads 1 (E running: wait) or E's release store of 0 (E's writes visible);
 * if F precedes it, E's load in 2. comes after a. and sees the word off, so
 * E never touches the state. Without membarrier (kernel < 4.14, a seccomp
 * filter) there is no F: the controller issues a seq_cst fence and pauses,
 * much longer than a store buffer takes to drain. */
#ifndef XR_QUIESCE_H
#define XR_QUIESCE_H

#include "core/base/common.h"

/* The pause standing in for membarrier, the same for every mode. */
#define XR_QUIESCE_PAUSE_NS 1000000u

/* The quiesce bound, one rule for every mode (docs/reliability.md, "When
 * a mode stops"): how long step c. waits for threads still inside a
 * handler before giving up on them (each mode counts and reports those).
 * It comes from the mode's grace_period_ms option, whose default is
 * XR_QUIESCE_BOUND_DEFAULT_TEXT; the wait ends as soon as no thread is
 * inside, so the bound costs nothing when none is. */
#define XR_QUIESCE_BOUND_DEFAULT_MS 100
#define XR_QUIESCE_BOUND_MIN_MS 10    /* a thread preempted mid-event */
#define XR_QUIESCE_BOUND_MAX_MS 10000 /* a stopped thread never delays more */
#define XR_QUIESCE_TEXT_(n) #n
#define XR_QUIESCE_TEXT(n) XR_QUIESCE_TEXT_(n)
/* The default as an option table writes it ("100"), and the range its help
 * text ends with. */
#define XR_QUIESCE_BOUND_DEFAULT_TEXT XR_QUIESCE_TEXT(XR_QUIESCE_BOUND_DEFAULT_MS)
#define XR_QUIESCE_BOUND_RANGE_TEXT                                            \
  " (held to " XR_QUIESCE_TEXT(XR_QUIESCE_BOUND_MIN_MS) " .. "                 \
      XR_QUIESCE_TEXT(XR_QUIESCE_BOUND_MAX_MS) ")"

/* The bound in milliseconds for a grace_period_ms option value: the value
 * held to [XR_QUIESCE_BOUND_MIN_MS, XR_QUIESCE_BOUND_MAX_MS]. */
XR_HIDDEN uint32_t xr_quiesce_bound_ms(int32_t grace_period_ms);

/* Chooses the membarrier flavour once (private expedited, registered here,
 * else global, else none); idempotent and thread-safe. Called at start,
 * before the program's threads exist (registering later waits for an RCU
 * grace period), and at mode init, before the first xr_quiesce_fence. */
XR_HIDDEN void xr_quiesce_setup(void);

/* Step b.: membarrier, or a seq_cst fence and a pause of
 * XR_QUIESCE_PAUSE_NS where membarrier is unavailable. */
XR_HIDDEN void xr_quiesce_fence(void);

/* Step c., one iteration: `while (guard set) if (!xr_quiesce_wait_step(&steps,
 * deadline)) give up;` spins with the CPU's pause for 64 steps, then yields
 * the CPU; false once CLOCK_MONOTONIC passes deadline_ns. */
XR_HIDDEN bool xr_quiesce_wait_step(unsigned *steps, uint64_t deadline_ns);
/* CLOCK_MONOTONIC now + timeout_ns, for xr_quiesce_wait_step. The modes
 * pass their bound (xr_quiesce_bound_ms) in nanoseconds. */
XR_HIDDEN uint64_t xr_quiesce_deadline(uint64_t timeout_ns);

#endif
