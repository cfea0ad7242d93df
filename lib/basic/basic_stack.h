/* Basic mode's shadow stack and duration filter: the logic of the lean
 * handlers (basic_log_lean.c), inline and pure over one thread's state, so
 * that the unit tests run exactly this code with synthetic timestamps.
 * The filter's rules are in basic_log_lean.c's head comment. */
#ifndef XR_BASIC_STACK_H
#define XR_BASIC_STACK_H

#include "basic/basic_records.h"
#include "basic/basic_thread.h"
#include "core/base/common.h"

static XR_ALWAYS_INLINE void xr_basic_on_entry(struct xr_basic_thread *t,
                                               int32_t fid, unsigned type,
                                               uint64_t tsc, uint8_t cpu,
                                               uint64_t arg) {
  uint32_t d = t->depth++;
  if (XR_UNLIKELY(d >= t->frame_capacity))
    return; /* deeper than we track: counted only */
  struct xr_basic_frame *f = &t->frames[d];
  f->fid = fid;
  f->type = (uint8_t)type;
  f->cpu = cpu;
  f->tsc = tsc;
  if (XR_UNLIKELY(d >= t->max_depth)) {
    f->recorded = 0;
    return;
  }
  unsigned n = type == XR_BASIC_ENTRY_ARGS ? 2 : 1;
  if (XR_UNLIKELY(t->used + n > t->capacity))
    t->spill(t); /* an entry and its payload never straddle a spill */
  struct xr_basic_record *r = t->buf + t->used;
  xr_basic_put_normal(r, fid, type, cpu, tsc, t->ids);
  if (n == 2)
    xr_basic_put_arg(r + 1, fid, t->ids, arg);
  t->used += n;
  f->recorded = 1;
  f->end_pos = t->spilled + t->used;
}

/* Ends the call of frame f: rewinds it when it is short and nothing was
 * written after it, else writes an exit record of `type`, flagged
 * XR_BASIC_FLAG_UNWOUND when `unwound` (a constant at every call: the
 * common exit's code does not change). */
static XR_ALWAYS_INLINE void close_call(struct xr_basic_thread *t,
                                        const struct xr_basic_frame *f,
                                        unsigned type, uint64_t tsc,
                                        uint8_t cpu, bool unwound) {
  if (!f->recorded)
    return;
  unsigned n = f->type == XR_BASIC_ENTRY_ARGS ? 2 : 1;
  /* >=: a counter of tens of MHz (AArch64's generic timer: 25 MHz on
   * some servers) reads the same at both ends of a short call. */
  if (f->end_pos == t->spilled + t->used && t->used >= n && f->cpu == cpu &&
      tsc >= f->tsc && tsc - f->tsc < t->threshold_ticks) {
    t->used -= n;
    t->erased++;
    return;
  }
  if (XR_UNLIKELY(t->used >= t->capacity))
    t->spill(t);
  xr_basic_put_normal(t->buf + t->used, f->fid, type, cpu, tsc, t->ids);
  if (unwound)
    t->buf[t->used].w[3] = XR_BASIC_FLAG_UNWOUND; /* byte 24 */
  t->used++;
}

/* The exit is not for the top frame: find its frame and close the calls
 * above it (skipped by longjmp or an exception), or, when it is not on the
 * stack, close everything (its call began before recording did). */
static XR_NOINLINE void exit_below_top(struct xr_basic_thread *t, int32_t fid,
                                       unsigned type, uint64_t tsc,
                                       uint8_t cpu) {
  uint32_t d = t->depth; /* 1 .. frame_capacity */
  uint32_t i = d - 1;
  while (i > 0) {
    --i;
    if (t->frames[i].fid == fid) {
      for (uint32_t j = d - 1; j > i; --j)
        close_call(t, &t->frames[j], XR_BASIC_EXIT, tsc, cpu, true);
      t->unwound += d - 1 - i;
      t->depth = i;
      close_call(t, &t->frames[i], type, tsc, cpu, false);
      return;
    }
  }
  for (uint32_t j = d; j > 0; --j)
    close_call(t, &t->frames[j - 1], XR_BASIC_EXIT, tsc, cpu, true);
  t->unwound += d;
  t->depth = 0;
  t->unmatched_exits++;
}

static XR_ALWAYS_INLINE void xr_basic_on_exit(struct xr_basic_thread *t,
                                              int32_t fid, unsigned type,
                                              uint64_t tsc, uint8_t cpu) {
  uint32_t d = t->depth;
  if (XR_UNLIKELY(d == 0)) {
    t->unmatched_exits++; /* entered before recording started */
    return;
  }
  if (XR_UNLIKELY(d > t->frame_capacity)) {
    t->depth = d - 1; /* untracked depth: assume it matches */
    return;
  }
  const struct xr_basic_frame *top = &t->frames[d - 1];
  if (XR_UNLIKELY(top->fid != fid)) {
    exit_below_top(t, fid, type, tsc, cpu);
    return;
  }
  t->depth = d - 1;
  close_call(t, top, type, tsc, cpu, false);
}

#endif
