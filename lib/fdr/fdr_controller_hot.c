/* FDR lean handlers: one per event kind, run straight from the trampolines.
 *
 * Compiled with -mgeneral-regs-only: no vector or x87 register, no libc
 * call, no lock, no system call, no atomic read-modify-write. Anything else
 * (a new buffer, the non-TSC clock) goes through xr_call_preserving_vectors.
 *
 * Budget of a function event in the common case (function_event: a buffer
 * of this generation with room, same CPU, delta fits, threshold 0 or an
 * enter): one rdtsc; TLS loads of the thread state; a load and two stores
 * of the writer's busy flag (also the re-entrancy guard); one load+compare
 * of the global epoch; one compare for space; one %fs load+compare of the
 * rseq CPU id; one compare of the TSC delta; one 8-byte record store;
 * stores of the cursor (in the thread state and in the writer slot, where
 * finalize reads the extents) and the last TSC. About 40 instructions, no
 * call, no fence, no register save; rdtsc is most of its cost.
 * Everything else (metadata, buffer switch, erasure at a threshold) takes
 * function_event_full through a tail call.
 *
 * Protocol with finalize (see xr_fdr_writers_quiesce): busy := 1, compiler
 * barrier, check the epoch, write, store the cursor in the writer slot,
 * compiler barrier, busy := 0. A writer never follows a pointer into a buffer before the epoch
 * check passed. */
#include "core/clock.h"
#include "core/handlers.h"
#include "core/thread.h"
#include "fdr/fdr_controller.h"
#include "fdr/fdr_records.h"

XR_TLS struct xr_fdr_thread xr_fdr_thread;

#define BARRIER() __asm__ volatile("" ::: "memory")

/* The writer's busy flag and the epoch, as C11 atomics (same instructions
 * as plain moves on x86). Ordering argument: busy := 1 must be visible to
 * finalize before this thread reads the epoch (store -> load order, which
 * x86 does not give without a fence). No fence is paid here: finalize
 * changes the epoch and then runs membarrier, which makes every running
 * thread execute a full fence; so either our busy := 1 is seen by
 * xr_fdr_writers_quiesce (it waits) or our epoch load sees the change (we
 * back out). Hence relaxed for the set and the epoch load; the compiler
 * barrier keeps the compiler from moving them. busy := 0 is a release
 * store: the records and extents written under busy happen before
 * quiesce's acquire load that reads 0. */
static XR_ALWAYS_INLINE void set_busy(struct xr_fdr_writer *w) {
  __atomic_store_n(&w->busy, 1, __ATOMIC_RELAXED);
}
static XR_ALWAYS_INLINE void clear_busy(struct xr_fdr_writer *w) {
  __atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
}
static XR_ALWAYS_INLINE uint64_t current_epoch(void) {
  return __atomic_load_n(&xr_fdr_hot.epoch, __ATOMIC_ACQUIRE);
}

/* An event arriving while this thread is already inside the tracer (from a
 * signal handler) is dropped and counted in the thread's own slot, or until
 * it has one, in its thread state. One locked add: a signal landing inside
 * another signal's count cannot split it (rare path, cost irrelevant). */
static XR_ALWAYS_INLINE void count_nested(void) {
  struct xr_fdr_writer *w = xr_fdr_thread.writer;
  __atomic_fetch_add(w ? &w->nested : &xr_fdr_thread.nested_pending, 1,
                     __ATOMIC_RELAXED);
}

static XR_ALWAYS_INLINE uint32_t fdr_cpu(void) {
  intptr_t off = xr_fdr_hot.rseq_cpu_offset;
  uint32_t cpu;
  if (XR_LIKELY(off != 0)) {
    __asm__ volatile("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(off));
    return cpu;
  }
  xr_call_preserving_vectors(xr_fdr_cpu_slow, &cpu);
  return cpu;
}

/* Enters the buffer: returns true with the writer busy and at least `need`
 * bytes free in the current generation's buffer. */
static XR_ALWAYS_INLINE bool begin_write(struct xr_fdr_thread *t, uint64_t tsc,
                                         size_t need) {
  struct xr_fdr_writer *w = t->writer;
  if (XR_LIKELY(w != NULL)) {
    set_busy(w);
    BARRIER();
    if (XR_LIKELY(t->epoch == current_epoch() &&
                  (size_t)(t->end - t->cur) >= need)) {
      BARRIER(); /* configuration reads stay after the epoch check */
      return true;
    }
  }
  struct xr_fdr_prepare_args args = {t, tsc, need, false};
  xr_call_preserving_vectors(xr_fdr_prepare_slow, &args);
  return args.ok;
}

static XR_ALWAYS_INLINE void end_write(struct xr_fdr_thread *t, uint8_t *p) {
  t->cur = p;
  t->writer->cur = p; /* the extents, as finalize will read them */
  BARRIER();
  clear_busy(t->writer);
}

/* Writes NewCPUId when the thread moved, TSCWrap when the delta does not fit
 * in 31 bits; returns the position for the event and its delta. */
static XR_ALWAYS_INLINE uint8_t *stamp(struct xr_fdr_thread *t, uint8_t *p,
                                       uint64_t tsc, uint32_t *delta) {
  uint32_t cpu = fdr_cpu();
  if (XR_UNLIKELY(cpu != t->cpu)) {
    t->cpu = cpu;
    p = xr_fdr_new_cpu(p, (uint16_t)cpu, tsc);
    t->run_start = p;
    t->last_tsc = tsc;
  }
  uint64_t d = tsc - t->last_tsc;
  if (XR_UNLIKELY(d > INT32_MAX)) {
    p = xr_fdr_tsc_wrap(p, tsc);
    t->run_start = p;
    t->last_tsc = tsc;
    d = 0;
  }
  *delta = (uint32_t)d;
  return p;
}

/* Every case of a function event: first event of a thread, buffer switch,
 * CPU change, TSC wrap, generation change, re-entry. tsc 0: not read yet;
 * read here once the guard is set, so that a signal handler's events are
 * either dropped or all before this one (no backwards TSC, no TSCWrap). */
static XR_NOINLINE void function_event_full(int32_t id, unsigned type,
                                            uint64_t arg, uint64_t tsc) {
  /* Nested: the guard (set by this path, the payload path and thread-exit
   * hooks) or the writer's busy flag (the fast path's only guard). */
  struct xr_fdr_writer *self = xr_fdr_thread.writer;
  if (XR_UNLIKELY(xr_in_handler ||
                  (self && __atomic_load_n(&self->busy, __ATOMIC_RELAXED)))) {
    count_nested();
    return;
  }
  xr_in_handler = 1;
  BARRIER();
  if (tsc == 0)
    tsc = xr_now();
  struct xr_fdr_thread *t = &xr_fdr_thread;
  /* room for a NewCPUId or TSCWrap, the record, and a CallArgument */
  size_t need = XR_FDR_META_SIZE + XR_FDR_FN_SIZE +
                (type == LOG_ARGS_ENTRY ? XR_FDR_META_SIZE : 0);
  if (XR_LIKELY(begin_write(t, tsc, need))) {
    uint32_t delta;
    uint8_t *p = stamp(t, t->cur, tsc, &delta);
    switch (type) {
    case ENTRY:
      p = xr_fdr_function(p, id, XR_FDR_FN_ENTER, delta);
      break;
    case LOG_ARGS_ENTRY:
      p = xr_fdr_function(p, id, XR_FDR_FN_ENTER_ARG, delta);
      p = xr_fdr_call_argument(p, arg);
      t->run_start = p;
      break;
    default: { /* exit or tail exit: erase the call if it was short */
      uint64_t threshold = xr_fdr_hot.threshold_ticks;
      if (threshold != 0 && p != t->run_start) {
        uint64_t last = t->last_tsc;
        uint8_t *back =
            xr_fdr_rewind(t->run_start, p, id, tsc, threshold, &last);
        if (back) {
          /* Owner-only counter: a plain add (no locked RMW), atomic only so
           * flush may read it. Off the common path: erasure is here only. */
          uint64_t *erased = &t->writer->erased;
          __atomic_store_n(erased, __atomic_load_n(erased, __ATOMIC_RELAXED) + 1,
                           __ATOMIC_RELAXED);
          t->last_tsc = last;
          end_write(t, back);
          goto out;
        }
      }
      p = xr_fdr_function(
          p, id, type == EXIT ? XR_FDR_FN_EXIT : XR_FDR_FN_TAIL_EXIT,
          delta);
      t->run_start = p;
      break;
    }
    }
    t->last_tsc = tsc;
    end_write(t, p);
  }
out:
  BARRIER();
  xr_in_handler = 0;
}

/* The common case, written so that it makes no call (no register saves in
 * its prologue): a thread with a buffer of this generation, room for the
 * record, on the same CPU as its last record, a delta that fits. Anything
 * else leaves through a tail call to function_event_full, with the guard
 * and busy flag as they were on entry. */
static XR_ALWAYS_INLINE void function_event(int32_t id, unsigned type,
                                            uint64_t arg) {
  struct xr_fdr_thread *t = &xr_fdr_thread;
  struct xr_fdr_writer *w = t->writer;
  intptr_t off = xr_fdr_hot.rseq_cpu_offset;
  /* One flag serves as both the re-entrancy guard and the busy flag: a
   * signal landing while it is set finds it set and goes to the full path,
   * which counts the nested drop; xr_in_handler (set by the full path and
   * by thread-exit hooks) is checked there, not here. */
  if (XR_UNLIKELY(w == NULL || off == 0 || !xr_clock.using_tsc ||
                  __atomic_load_n(&w->busy, __ATOMIC_RELAXED))) {
    function_event_full(id, type, arg, 0);
    return;
  }
  set_busy(w);
  BARRIER();
  /* The clock after the flag: a signal handler's events are dropped from
   * here on, and any it wrote before came earlier in time too. xr_now()
   * without its using_tsc test, made above with the others. */
  uint64_t tsc = xr_rdtsc();
  /* The checks one after another, each value dead after its compare: few
   * registers live, so no register needs saving. */
  if (XR_UNLIKELY(t->epoch != current_epoch()))
    goto bail;
  uint32_t cpu;
  __asm__ volatile("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(off));
  if (XR_UNLIKELY(cpu != t->cpu))
    goto bail;
  uint64_t delta = tsc - t->last_tsc;
  if (XR_UNLIKELY(delta > INT32_MAX))
    goto bail;
  size_t need = XR_FDR_FN_SIZE + (type == LOG_ARGS_ENTRY ? XR_FDR_META_SIZE : 0);
  uint8_t *p = t->cur;
  if (XR_UNLIKELY((size_t)(t->end - p) < need))
    goto bail;
  BARRIER(); /* configuration reads stay after the epoch check */
  if (type == ENTRY) {
    p = xr_fdr_function(p, id, XR_FDR_FN_ENTER, (uint32_t)delta);
  } else if (type == LOG_ARGS_ENTRY) {
    p = xr_fdr_function(p, id, XR_FDR_FN_ENTER_ARG, (uint32_t)delta);
    p = xr_fdr_call_argument(p, arg);
    t->run_start = p;
  } else { /* exit or tail exit */
    if (xr_fdr_hot.threshold_ticks != 0 && p != t->run_start)
      goto bail; /* maybe a short call to erase: the full path looks */
    p = xr_fdr_function(p, id, type == EXIT ? XR_FDR_FN_EXIT : XR_FDR_FN_TAIL_EXIT,
                        (uint32_t)delta);
    t->run_start = p;
  }
  t->last_tsc = tsc;
  t->cur = p;
  w->cur = p; /* the extents, as finalize will read them */
  BARRIER();
  clear_busy(w);
  return;
bail: /* with the busy flag as it was on entry */
  clear_busy(w);
  BARRIER();
  function_event_full(id, type, arg, tsc);
}

void xr_fdr_handle_arg0(int32_t id, enum XRayEntryType type) {
  /* An arg-logging entry reaching the arg0 handler has no argument. */
  function_event(id, type == LOG_ARGS_ENTRY ? ENTRY : (unsigned)type,
                 0);
}

void xr_fdr_handle_arg1(int32_t id, enum XRayEntryType type, uint64_t arg) {
  function_event(id, (unsigned)type, arg);
}

static XR_ALWAYS_INLINE void payload_event(bool typed, uint16_t event_type,
                                           const void *data, size_t size) {
  struct xr_fdr_writer *self = xr_fdr_thread.writer;
  if (XR_UNLIKELY(xr_in_handler ||
                  (self && __atomic_load_n(&self->busy, __ATOMIC_RELAXED)))) {
    count_nested();
    return;
  }
  xr_in_handler = 1;
  BARRIER();
  uint64_t tsc = xr_now(); /* after the guard: see function_event_full */
  struct xr_fdr_thread *t = &xr_fdr_thread;
  /* Empty events are invalid for readers; oversized ones fit no buffer;
   * version 1 has no typed events. */
  if (XR_UNLIKELY(size == 0 || size > xr_fdr_hot.max_event_size ||
                  (typed && xr_fdr_hot.version < 5))) {
    xr_call_preserving_vectors(xr_fdr_count_drop_slow, t);
  } else if (XR_LIKELY(begin_write(t, tsc, 2 * XR_FDR_META_SIZE + size))) {
    if (XR_UNLIKELY(typed && xr_fdr_hot.version < 5)) {
      end_write(t, t->cur); /* re-initialised as version 1 meanwhile */
      goto out;
    }
    uint32_t delta;
    uint8_t *p = stamp(t, t->cur, tsc, &delta);
    if (typed) {
      p = xr_fdr_typed_event(p, (int32_t)size, (int32_t)delta, event_type);
    } else if (xr_fdr_hot.version >= 5) {
      p = xr_fdr_custom_event(p, (int32_t)size, (int32_t)delta);
    } else {
      /* v1 marker: absolute TSC; the reader's running TSC is unchanged. */
      p = xr_fdr_custom_event_v1(p, (int32_t)size, tsc);
      tsc = t->last_tsc;
    }
    p = xr_fdr_copy(p, data, size);
    t->run_start = p;
    t->last_tsc = tsc;
    end_write(t, p);
  }
out:
  BARRIER();
  xr_in_handler = 0;
}

void xr_fdr_handle_custom(void *data, size_t size) {
  payload_event(false, 0, data, size);
}

void xr_fdr_handle_typed(uint16_t type, const void *data, size_t size) {
  payload_event(true, type, data, size);
}
