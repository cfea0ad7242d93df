/* Basic mode's shadow stack and duration filter: the logic of the lean
 * handlers (basic_log_lean.c), inline and pure over one thread's state, so
 * that the unit tests run exactly this code with synthetic timestamps.
 * The filter's rules are in basic_log_lean.c's head comment. */
#ifndef XR_BASIC_STACK_H
#define XR_BASIC_STACK_H

#include "basic/basic_records.h"
#include "basic/basic_thread.h"
#include "basic/basic_values.h"
#include "core/base/call_frames.h"
#include "core/base/common.h"

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

/* Closes, as unwound, the tracked calls on top that are gone at `sp`
 * (core/base/call_frames.h; `at_exit`: an exit's rule); returns the new
 * depth. Calls deeper than the tracked frames (never written: they are
 * below max_depth) go first, when the deepest tracked one is gone. */
static XR_NOINLINE uint32_t close_left(struct xr_basic_thread *t, uintptr_t sp, bool at_exit,
                                       uint64_t tsc, uint8_t cpu) {
  uint32_t d = t->depth, cap = t->frame_capacity;
  if (d > cap) {
    if (cap == 0)
      return d;
    if (!xr_frame_gone(t->frames[cap - 1].sp, sp, at_exit))
      return d;
    t->unwound += d - cap;
    d = cap;
  }
  while (d > 0 && xr_frame_gone(t->frames[d - 1].sp, sp, at_exit)) {
    d--;
    close_call(t, &t->frames[d], XR_BASIC_EXIT, tsc, cpu, true);
    t->unwound++;
  }
  t->depth = d;
  return d;
}

static XR_ALWAYS_INLINE void xr_basic_on_entry(struct xr_basic_thread *t,
                                               int32_t fid, unsigned type,
                                               uint64_t tsc, uint8_t cpu,
                                               uint64_t arg, uintptr_t sp) {
  uint32_t d = t->depth;
  /* The top call is gone (d - 1 wraps for an empty stack), or the top is
   * deeper than we track: the slow path looks. */
  if (XR_UNLIKELY(d - 1u < t->frame_capacity ? t->frames[d - 1].sp <= sp : d != 0))
    d = close_left(t, sp, false, tsc, cpu);
  t->depth = d + 1;
  if (XR_UNLIKELY(d >= t->frame_capacity))
    return; /* deeper than we track: counted only */
  struct xr_basic_frame *f = &t->frames[d];
  f->fid = fid;
  f->type = (uint8_t)type;
  f->cpu = cpu;
  f->tsc = tsc;
  f->sp = sp;
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

/* The exit's call by function id alone (the exit came from another stack,
 * beyond the window): find its frame and close the calls above it, or,
 * when it is not on the stack, close everything (its call began before
 * recording did). */
static XR_NOINLINE void exit_by_id(struct xr_basic_thread *t, int32_t fid, unsigned type,
                                   uint64_t tsc, uint8_t cpu) {
  uint32_t d = t->depth; /* 1 .. frame_capacity */
  uint32_t i = d;
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

/* The exit is not the top call's: first the calls left above its own
 * (close_left); then its call is on top, or deeper than we track (assumed
 * to match), or not on the stack at all (entered before recording or
 * patching: dropped and counted, nothing more closed), or the exit came from
 * another stack (exit_by_id). */
static XR_NOINLINE void exit_not_top(struct xr_basic_thread *t, int32_t fid, unsigned type,
                                     uint64_t tsc, uint8_t cpu, uintptr_t sp) {
  uint32_t d = close_left(t, sp, true, tsc, cpu);
  if (d > t->frame_capacity) {
    t->depth = d - 1;
    return;
  }
  const struct xr_basic_frame *top = d > 0 ? &t->frames[d - 1] : NULL;
  if (top != NULL && top->sp == sp && top->fid == fid) {
    t->depth = d - 1;
    close_call(t, top, type, tsc, cpu, false);
  } else if (top == NULL || top->sp > sp) {
    t->unmatched_exits++;
  } else {
    exit_by_id(t, fid, type, tsc, cpu);
  }
}

static XR_ALWAYS_INLINE void xr_basic_on_exit(struct xr_basic_thread *t,
                                              int32_t fid, unsigned type,
                                              uint64_t tsc, uint8_t cpu, uintptr_t sp) {
  uint32_t d = t->depth;
  if (XR_UNLIKELY(d == 0)) {
    t->unmatched_exits++; /* entered before recording started */
    return;
  }
  if (XR_UNLIKELY(d > t->frame_capacity)) {
    exit_not_top(t, fid, type, tsc, cpu, sp);
    return;
  }
  const struct xr_basic_frame *top = &t->frames[d - 1];
  if (XR_UNLIKELY(top->sp != sp || top->fid != fid)) {
    exit_not_top(t, fid, type, tsc, cpu, sp);
    return;
  }
  t->depth = d - 1;
  close_call(t, top, type, tsc, cpu, false);
}

/* The stack pointer an event without one stands for (a caller that cannot
 * pass it, core/dispatch/handlers.h), so that the rules above do what they
 * did by function id: an entry nests in the top call (just below it), an
 * exit is the newest open call of its function (or, not on the stack,
 * below everything: dropped). */
static XR_ALWAYS_INLINE uintptr_t xr_basic_implied_sp(const struct xr_basic_thread *t,
                                                      int32_t fid, bool exit) {
  uint32_t d = t->depth, cap = t->frame_capacity;
  if (d > cap)
    return cap == 0 ? UINTPTR_MAX : t->frames[cap - 1].sp - 1; /* untracked: nests */
  if (!exit)
    return d == 0 ? UINTPTR_MAX : t->frames[d - 1].sp - 1;
  for (uint32_t i = d; i > 0; i--)
    if (t->frames[i - 1].fid == fid)
      return t->frames[i - 1].sp;
  return 0;
}

/* ---- calls with values (the argument sink, basic_args.c) ---------------
 * The same rules, with the call's values as payloads right after its
 * entry or exit record, in the same buffer (so in the same write: a
 * record and its payloads are never split by a spill). A call with values
 * is never erased by the threshold: its end_pos is one no stream position
 * reaches. The lean handlers never come here. */
#define XR_BASIC_NEVER_ERASED UINT64_MAX

/* Room for n records after the last one written, which moves with them
 * to the next buffer when they do not fit after it (its stream position
 * stays the same: the spill hands over everything before it). */
static inline void room_after_last(struct xr_basic_thread *t, uint32_t n) {
  if (t->used + n <= t->capacity)
    return;
  struct xr_basic_record last = t->buf[t->used - 1];
  t->used--;
  t->spill(t);
  t->buf[0] = last;
  t->used = 1;
}

/* An entry with values c: the entry record (Type 3, XR_BASIC_ENTRY_ARGS)
 * then the payloads of as many values as the buffer holds beside it
 * (all but with a thread_buffer_size of a few records). Without values
 * (none, or no room): a plain entry, as the lean handler writes it. */
static inline void xr_basic_on_entry_values(struct xr_basic_thread *t, int32_t fid,
                                            uint64_t tsc, uint8_t cpu, uintptr_t sp,
                                            const struct xr_arg_call *c) {
  uint32_t n = 0;
  unsigned k = t->capacity > 0 ? xr_basic_values_fitting(c, t->capacity - 1, &n) : 0;
  xr_basic_on_entry(t, fid, XR_BASIC_ENTRY, tsc, cpu, 0, sp);
  uint32_t d = t->depth - 1;
  if (k == 0 || d >= t->frame_capacity || !t->frames[d].recorded)
    return; /* not written (deeper than the limit): nor its values */
  room_after_last(t, n);
  struct xr_basic_record *r = t->buf + t->used - 1;
  r->w[0] = (r->w[0] & ~((uint64_t)0xff << 24)) | (uint64_t)XR_BASIC_ENTRY_ARGS << 24;
  xr_basic_put_values(r + 1, fid, t->ids, c, k);
  t->used += n;
  t->frames[d].type = XR_BASIC_ENTRY_ARGS;
  t->frames[d].end_pos = XR_BASIC_NEVER_ERASED;
}

/* The frame an exit of (fid, sp) will close, by the rules above: the
 * newest with both, else the newest of fid; never erased from now on. */
static inline void keep_call(struct xr_basic_thread *t, int32_t fid, uintptr_t sp) {
  uint32_t d = t->depth < t->frame_capacity ? t->depth : t->frame_capacity;
  struct xr_basic_frame *of_fid = NULL;
  for (uint32_t i = d; i > 0; i--) {
    struct xr_basic_frame *f = &t->frames[i - 1];
    if (f->fid != fid)
      continue;
    if (f->sp == sp) {
      f->end_pos = XR_BASIC_NEVER_ERASED;
      return;
    }
    if (of_fid == NULL)
      of_fid = f;
  }
  if (of_fid != NULL)
    of_fid->end_pos = XR_BASIC_NEVER_ERASED;
}

/* An exit of `type` with values c (its return value): the exit as the
 * lean handler writes it (unwinding what it unwinds), then, when the
 * call's own exit record was written, the values' payloads. */
static inline void xr_basic_on_exit_values(struct xr_basic_thread *t, int32_t fid,
                                           unsigned type, uint64_t tsc, uint8_t cpu,
                                           uintptr_t sp, const struct xr_arg_call *c) {
  uint32_t n = 0;
  unsigned k = t->capacity > 0 ? xr_basic_values_fitting(c, t->capacity - 1, &n) : 0;
  if (k != 0)
    keep_call(t, fid, sp);
  uint64_t before = t->spilled + t->used;
  xr_basic_on_exit(t, fid, type, tsc, cpu, sp);
  if (k == 0 || t->spilled + t->used <= before)
    return;
  /* Its own exit is the last record written, when there is one: plain,
   * not flagged unwound, of fid, type and tsc. */
  struct xr_basic_record want;
  xr_basic_put_normal(&want, fid, type, cpu, tsc, t->ids);
  const struct xr_basic_record *last = t->buf + t->used - 1;
  if (last->w[0] != want.w[0] || last->w[1] != tsc || last->w[3] != 0)
    return;
  room_after_last(t, n);
  xr_basic_put_values(t->buf + t->used, fid, t->ids, c, k);
  t->used += n;
}

#endif
