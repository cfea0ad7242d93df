/* Basic mode's per-event handlers: the lean hot path.
 *
 * A lean translation unit (core/base/lean.h): general registers only,
 * no libc. The two slow paths, setting a thread up and writing a full buffer,
 * leave through xr_call_preserving_vectors() into basic_mode.c, by the two
 * pointers below that it sets: this file names nothing of basic_mode.c, so
 * calls between the two go one way (mode -> lean).
 *
 * Budget per event in steady state: a guard test and set, one load of the
 * global epoch, one tick read and the CPU id (xr_cpu_id: an rseq TLS load), a
 * shadow-stack push or pop (a handful of loads and stores in one frame), one
 * 32-byte record (four 8-byte stores) or a rewind (a subtraction and the
 * erased count's increment), and the
 * busy flag set and cleared. No system call, no lock, no allocation, no loop
 * (except when longjmp skipped exits). Most of an event's time is the
 * tick read where a VM traps it (docs/performance.md has the figures).
 *
 * Filtering (per thread, on the shadow stack):
 *  - entries at depth index >= max_depth are tracked but not written, and so
 *    are their exits;
 *  - an exit whose call is the last thing in the buffer, ran on the same CPU
 *    and took less than threshold_ticks rewinds the buffer over the call's
 *    entry record (and its argument payload) instead of writing an exit;
 *  - calls a longjmp or an exception left (an event at or above their
 *    sled's stack pointer, core/base/call_frames.h) are closed first, with
 *    exit records at the event's time flagged in byte 24
 *    (XR_BASIC_FLAG_UNWOUND), so the file stays well nested and the stack
 *    never grows for ever;
 *  - an exit for a call that is not on the stack at all began before
 *    recording did: it is dropped (counted); of the calls on the stack it
 *    closes only those below it (the rule above). */
#include "core/base/lean.h"
#include "basic/basic_guard.h" /* the guard around every event */
#include "basic/basic_log_lean.h"
#include "basic/basic_records.h"
#include "basic/basic_stack.h" /* the shadow stack and the filter */
#include "basic/basic_thread.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/dispatch/handlers.h"
#include "core/thread/thread.h"

XR_TLS struct xr_basic_thread xr_basic_tls;
void (*xr_basic_prepare_slow)(void *prepare);
void (*xr_basic_spill_slow)(void *thread);

/* The tick read + xr_cpu_id (the rseq load where there is one), not the
 * port's tick-and-CPU read: on VMs that trap both, x86-64's costs about
 * twice the plain one (docs/performance.md), and the rseq load is ~free. */
static XR_ALWAYS_INLINE uint64_t read_clock(uint8_t *cpu) {
  uint64_t tsc = xr_now();
  *cpu = (uint8_t)xr_cpu_id();
  return tsc;
}

void xr_basic_spill_lean(struct xr_basic_thread *t) {
  xr_call_preserving_vectors(xr_basic_spill_slow, t);
}

static XR_NOINLINE bool prepare_slow(struct xr_basic_thread *t,
                                     uint32_t epoch) {
  if ((epoch & 1) || t->exited)
    return false; /* stopped, or this thread already said goodbye */
  struct xr_basic_prepare p = {t, epoch, false};
  xr_call_preserving_vectors(xr_basic_prepare_slow, &p);
  return p.ok;
}

/* One event: the guard around it (basic_guard.h), then the thread's
 * shadow stack and buffer. */
static XR_ALWAYS_INLINE void handle(int32_t fid, unsigned type, uint64_t arg, uintptr_t sp,
                                    bool have_sp) {
  struct xr_basic_thread *t = &xr_basic_tls;
  if (!xr_basic_event_begin(t))
    return;
  uint32_t epoch = xr_basic_epoch_now();
  if (XR_LIKELY(epoch == t->epoch) || prepare_slow(t, epoch)) {
    uint8_t cpu;
    uint64_t tsc = read_clock(&cpu);
    bool exit = type == XR_BASIC_EXIT || type == XR_BASIC_TAIL;
    if (!have_sp)
      sp = xr_basic_implied_sp(t, fid, exit);
    if (exit)
      xr_basic_on_exit(t, fid, type, tsc, cpu, sp);
    else
      xr_basic_on_entry(t, fid, type, tsc, cpu, arg, sp);
  }
  xr_basic_event_end(t);
}

/* A log-args entry reaching the arg0 slot carries no argument: recorded as
 * a plain entry. Custom and typed events never come here. */
static XR_ALWAYS_INLINE void arg0(int32_t fid, XRayEntryType type, uintptr_t sp, bool have_sp) {
  unsigned t = (unsigned)type;
  if (t == XR_BASIC_ENTRY_ARGS)
    t = XR_BASIC_ENTRY;
  if (XR_UNLIKELY(t > XR_BASIC_TAIL))
    return;
  handle(fid, t, 0, sp, have_sp);
}

static XR_ALWAYS_INLINE void arg1(int32_t fid, XRayEntryType type, uint64_t arg, uintptr_t sp,
                                  bool have_sp) {
  unsigned t = (unsigned)type;
  if (XR_UNLIKELY(t > XR_BASIC_ENTRY_ARGS))
    return;
  handle(fid, t, arg, sp, have_sp);
}

void xr_basic_handle_arg0(int32_t fid, XRayEntryType type, uintptr_t sp) {
  arg0(fid, type, sp, true);
}

void xr_basic_handle_arg1(int32_t fid, XRayEntryType type, uint64_t arg, uintptr_t sp) {
  arg1(fid, type, arg, sp, true);
}

void xr_basic_handle_arg0_no_sp(int32_t fid, XRayEntryType type) { arg0(fid, type, 0, false); }

void xr_basic_handle_arg1_no_sp(int32_t fid, XRayEntryType type, uint64_t arg) {
  arg1(fid, type, arg, 0, false);
}
