/* FDR lean handlers: one per event kind, run straight from the trampolines.
 *
 * A lean translation unit (core/base/lean.h): no vector or x87 register, no libc
 * call, no lock, no system call. Anything else (a new buffer, the
 * clock_gettime fallback) goes through xr_call_preserving_vectors. The one
 * atomic read-modify-write is count_nested's locked add, on the rare path
 * of an event dropped inside the tracer.
 *
 * Budget of a function event in the common case (function_event: a buffer
 * of this generation with room, same CPU, delta fits, threshold 0 or an
 * enter): one tick read; TLS loads of the thread state; the writer's state
 * word (cursor + busy bit, the busy bit also being the re-entrancy guard):
 * one unlocked test-and-set to set busy, one load, and at the end one store
 * of the new cursor with busy off; one load+compare of the global fast epoch
 * (which also says the tick counter and a one-instruction CPU id are
 * usable); one compare for space; the CPU id (an rseq load, else the port's
 * CPU-id instruction, else its tick-and-CPU read in place of the tick read:
 * clock.h) and its compare; one compare of the tick delta; one 8-byte
 * record store; one store of the last timestamp; the shadow stack's top
 * (a TLS load and one compare with the event's stack pointer, one more for
 * room at an entry) and its push (two stores of the frame) or pop, one
 * store of the new top. Seven stores at an entry, five at an exit, about
 * 50 instructions on x86-64, no call, no fence, no locked instruction, no
 * register save; the tick read is most of its cost, and the rest runs in
 * its shadow.
 * Everything else (metadata, buffer switch, erasure at a threshold) takes
 * function_event_full through a tail call.
 *
 * Protocol with finalize (see xr_fdr_writers_quiesce): set the busy bit
 * (compiler barrier), check the epoch, write, compiler barrier, state :=
 * new cursor (busy off, release). A writer never follows a pointer into a
 * buffer before the epoch check passed. */
#include "core/base/lean.h"
#include "core/base/call_frames.h"
#include "core/base/test_points.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/dispatch/handlers.h"
#include "core/thread/thread.h"
#include "fdr/fdr_arg_records.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_controller_slow.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_slow_call.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"

#define BARRIER() xr_compiler_barrier()

/* Named test points (core/base/test_points.h). */
#ifdef XR_TEST_POINTS
void (*xr_fdr_test_bail_window)(void);
void (*xr_fdr_test_full_head)(void);
void (*xr_fdr_test_full_tail)(void);
#endif

/* The writer's state word and the epoch, as C11 atomics (plain moves on
 * x86-64; plain or acquire/release loads and stores on AArch64). Ordering
 * argument: busy := 1 must be visible to finalize before this thread reads
 * the epoch (store -> load order, which neither port gives without a
 * fence). No fence is paid here: finalize
 * changes the epoch and then runs membarrier, which makes every running
 * thread execute a full fence; so either our busy := 1 is seen by
 * xr_fdr_writers_quiesce (it waits) or our epoch load sees the change (we
 * back out). Hence relaxed for the set and the epoch load; the compiler
 * barrier keeps the compiler from moving them. Clearing busy is a release
 * store of the new cursor: the records written under busy happen before
 * quiesce's acquire load that reads the bit clear. Only the owner writes its
 * state (and finalize, for its own thread), so nothing needs a lock: the
 * bit is set with one unlocked test-and-set (xr_fdr_writer_enter). */
static XR_ALWAYS_INLINE uintptr_t load_state(const struct xr_fdr_writer *w) {
  return __atomic_load_n(&w->state, __ATOMIC_RELAXED);
}
static XR_ALWAYS_INLINE void clear_busy(struct xr_fdr_writer *w, uint8_t *cur) {
  __atomic_store_n(&w->state, (uintptr_t)cur, __ATOMIC_RELEASE);
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

/* The full and payload paths' entry: false (and the event counted as
 * dropped) when this thread is already inside the tracer, by the guard (set
 * by these paths and thread-exit hooks) or the writer's busy bit (the fast
 * path's only guard); else sets the busy bit, then the guard. leave_guard
 * clears them in the other order. So a signal handler never finds the guard
 * set with busy clear, where the fast path would keep its call's entry and
 * the full path drop its exit (a CPU change, a full buffer): its events are
 * kept or dropped in pairs. (A thread without a writer yet has no busy bit,
 * but then its fast path hands every event to the full path.) */
static XR_ALWAYS_INLINE bool enter_guard(void) {
  struct xr_fdr_writer *self = xr_fdr_thread.writer;
  if (XR_UNLIKELY(__atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED) ||
                  (self && (load_state(self) & XR_FDR_BUSY)))) {
    count_nested();
    return false;
  }
  if (self)
    (void)xr_fdr_writer_enter(self); /* clear: checked above */
  BARRIER();
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  BARRIER();
  return true;
}

/* The full and payload paths' exit: clears the guard, then the busy bit,
 * leaving `cur` as the cursor (the extents finalize reads), or the cursor
 * as it is when nothing was written (NULL; busy may already be clear: a
 * buffer that could not be had). */
static XR_ALWAYS_INLINE void leave_guard(struct xr_fdr_thread *t, uint8_t *cur) {
  BARRIER();
  __atomic_store_n(&xr_in_handler, 0, __ATOMIC_RELAXED);
  XR_TEST_POINT(xr_fdr_test_full_tail, ());
  BARRIER();
  struct xr_fdr_writer *w = t->writer;
  if (w == NULL)
    return;
  if (cur == NULL) {
    uintptr_t state = load_state(w);
    if (!(state & XR_FDR_BUSY))
      return;
    cur = xr_fdr_state_cursor(state);
  }
  clear_busy(w, cur);
}

/* One more in a counter of this thread's writer slot (erased, unmatched):
 * only the owner writes it, so a plain add (no locked read-modify-write),
 * atomic only so that the flush may read it. Off the common path. */
static XR_ALWAYS_INLINE void count_own(uint64_t *counter) {
  __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* The CPU id from the rseq area (the source chosen at init when the
 * kernel and libc register one). */
static XR_ALWAYS_INLINE uint32_t rseq_cpu(void) {
  return (uint32_t)xr_cpu_at_rseq_field(xr_fdr_hot.rseq_cpu_offset);
}

/* The timestamp and, in *cpu, the CPU id, by the source chosen at init.
 * The source is dead once both are read: with it live across the clock
 * read, the compiler saves a register in the fast path's prologue. */
static XR_ALWAYS_INLINE uint64_t clock_and_cpu(uint32_t *cpu) {
  int source = xr_fdr_hot.cpu_source;
  if (XR_LIKELY(source == XR_FDR_CPU_RSEQ)) {
    uint64_t tsc = xr_read_ticks();
    *cpu = rseq_cpu();
    return tsc;
  }
  if (source == XR_FDR_CPU_INSN) {
    uint64_t tsc = xr_read_ticks();
    *cpu = xr_cpu_by_insn();
    return tsc;
  }
  return xr_read_ticks_and_cpu(cpu);
}

/* The CPU id on the full path, whatever the clock: the rseq load inline,
 * else xr_cpu_id, which reads it the same way (the port's reads, or
 * sched_getcpu behind its own vector save) and is safe here. */
static XR_ALWAYS_INLINE uint32_t fdr_cpu(void) {
  if (XR_LIKELY(xr_fdr_hot.cpu_source == XR_FDR_CPU_RSEQ))
    return rseq_cpu();
  return xr_cpu_id();
}

/* Enters the buffer: returns the cursor, with the writer busy and at least
 * `need` bytes free in the current generation's buffer; NULL if the event
 * cannot be written (busy cleared then, unless nothing was tried). */
static XR_ALWAYS_INLINE uint8_t *begin_write(struct xr_fdr_thread *t,
                                             uint64_t tsc, size_t need) {
  struct xr_fdr_writer *w = t->writer;
  if (XR_LIKELY(w != NULL)) {
    (void)xr_fdr_writer_enter(w); /* clear: checked by the caller */
    uint8_t *cur = xr_fdr_state_cursor(load_state(w));
    if (XR_LIKELY(t->epoch == current_epoch() &&
                  (size_t)(t->end - cur) >= need)) {
      BARRIER(); /* configuration reads stay after the epoch check */
      return cur;
    }
  }
  struct xr_fdr_prepare_args args = {t, tsc, need, false};
  xr_call_preserving_vectors(xr_fdr_prepare_slow, &args);
  return args.ok ? xr_fdr_cursor(t) : NULL;
}

/* Writes NewCPUId when the thread moved, TSCWrap when the delta does not fit
 * in 31 bits; returns the position for the event and its delta. */
static XR_ALWAYS_INLINE uint8_t *stamp(struct xr_fdr_thread *t, uint8_t *p,
                                       uint64_t tsc, uint32_t *delta) {
  uint32_t cpu = fdr_cpu();
  if (XR_UNLIKELY(cpu != t->cpu)) {
    t->cpu = cpu;
    p = xr_fdr_new_cpu(p, (uint16_t)cpu, tsc);
    xr_fdr_set_run_start(t->writer, p);
    t->last_tsc = tsc;
  }
  uint64_t d = tsc - t->last_tsc;
  if (XR_UNLIKELY(d > INT32_MAX)) {
    p = xr_fdr_tsc_wrap(p, tsc);
    xr_fdr_set_run_start(t->writer, p);
    t->last_tsc = tsc;
    d = 0;
  }
  *delta = (uint32_t)d;
  return p;
}

/* Writes the exits of the calls the program left (an exception, longjmp or
 * noreturn call skipped them) that an event at sp finds gone: "xray-unwound
 * N" and N exit records at tsc, in pieces that fit a buffer, popping each
 * from the shadow stack; calls deeper than the stack holds (untracked) go
 * with the deepest one held, without records (their entries were not
 * kept either). Under the guard. A piece that cannot be written (no
 * buffer) pops its calls all the same; they are counted as dropped. */
enum { UNWOUND_PIECE = 64 };
static XR_NOINLINE void close_left(struct xr_fdr_thread *t, uintptr_t sp, bool at_exit,
                                   uint64_t tsc) {
  if (t->untracked != 0) {
    if (!xr_frame_gone(t->top->sp, sp, at_exit))
      return;
    t->untracked = 0;
  }
  uint64_t n = 0; /* the sentinel is never gone */
  for (const struct xr_fdr_frame *f = t->top; xr_frame_gone(f->sp, sp, at_exit); f--)
    n++;
  /* With a threshold, short calls go as a plain exit's would: rewound
   * over, newest first, while their entries are the last records. */
  uint64_t threshold = xr_fdr_hot.threshold_ticks;
  uint8_t *cur;
  if (threshold != 0 && n != 0 && (cur = begin_write(t, tsc, 0)) != NULL) {
    uint64_t last = t->last_tsc;
    uint8_t *back;
    while (n != 0 && (back = xr_fdr_rewind(xr_fdr_run_start(t->writer), cur, t->top->id, tsc,
                                           threshold, &last)) != NULL) {
      cur = back;
      t->last_tsc = last;
      count_own(&t->writer->erased);
      t->top--;
      n--;
    }
    __atomic_store_n(&t->writer->state, (uintptr_t)cur | XR_FDR_BUSY, __ATOMIC_RELAXED);
  }
  while (n != 0) {
    uint64_t k = n < UNWOUND_PIECE ? n : UNWOUND_PIECE;
    char text[XR_FDR_UNWOUND_MAX];
    int32_t size = xr_fdr_unwound_text(text, k);
    /* room for a NewCPUId or TSCWrap, the event, its text, the exits */
    cur = begin_write(t, tsc, 2 * XR_FDR_META_SIZE + (size_t)size + k * XR_FDR_FN_SIZE);
    if (cur == NULL) {
      t->top -= k; /* begin_write counted the drop */
      n -= k;
      continue;
    }
    uint32_t delta;
    uint8_t *p = stamp(t, cur, tsc, &delta);
    if (xr_fdr_hot.version >= 5) {
      p = xr_fdr_custom_event(p, size, (int32_t)delta);
      delta = 0;
    } else {
      p = xr_fdr_custom_event_v1(p, size, tsc); /* the running TSC stays */
    }
    p = xr_fdr_copy(p, text, (size_t)size);
    for (uint64_t i = 0; i < k; i++) {
      p = xr_fdr_function(p, t->top->id, XR_FDR_FN_EXIT, delta);
      delta = 0;
      t->top--;
    }
    t->last_tsc = tsc;
    xr_fdr_set_run_start(t->writer, p);
    /* The cursor moves on; the busy bit stays for the event itself. */
    __atomic_store_n(&t->writer->state, (uintptr_t)p | XR_FDR_BUSY, __ATOMIC_RELAXED);
    n -= k;
  }
}

/* What track found: whether it closed calls (records written or rewound),
 * and whether the event is an exit not to write. */
enum { TRACK_CLOSED = 1, TRACK_DROP = 2 };

/* The shadow stack's side of an event the full path writes: first the
 * calls gone at sp; then an entry is pushed (or counted as untracked
 * when the stack is full), an exit pops its own call when it is on top
 * (one deeper than the stack: an untracked one). An exit below the top
 * call is of a call that began before recording (or this generation): it
 * is not written, as the log writer would drop it, and counted; written,
 * the writer would take it for a call older than the kept records and
 * close the calls still running above it. An exit far above the top
 * (another stack) is written for the writer to match by id. */
static XR_ALWAYS_INLINE int track(struct xr_fdr_thread *t, int32_t id, bool exit,
                                  uintptr_t sp, uint64_t tsc) {
  int found = 0;
  if (xr_frame_gone(t->top->sp, sp, exit)) {
    close_left(t, sp, exit, tsc);
    found = TRACK_CLOSED;
  }
  if (!exit) {
    if (t->untracked != 0 || t->top == t->frames_last) {
      t->untracked++;
    } else {
      t->top[1].sp = sp;
      t->top[1].id = id;
      t->top++;
    }
  } else if (t->untracked != 0) {
    t->untracked--;
  } else if (t->top->sp == sp) {
    t->top--;
  } else if (t->top->sp > sp) {
    count_own(&t->writer->unmatched);
    found |= TRACK_DROP;
  }
  return found;
}

/* Every case of a function event: first event of a thread, buffer switch,
 * CPU change, TSC wrap, generation change, re-entry. tsc 0: not read yet;
 * read here once the guard is set, so that a signal handler's events are
 * either dropped or all before this one (no backwards TSC, no TSCWrap).
 * A tsc the fast path read comes from before its bail-out, when the busy
 * bit was already clear: a signal handler may have written later records
 * in between. Then it is older than the thread's last stamp and is read
 * again (a compare here, not a second tick read on every bail-out; the
 * event is stamped a little late, never out of order). */
static XR_NOINLINE void function_event_full(int32_t id, unsigned type,
                                            uint64_t arg, uintptr_t sp, uint64_t tsc) {
  if (XR_UNLIKELY(!enter_guard()))
    return;
  XR_TEST_POINT(xr_fdr_test_full_head, ());
  struct xr_fdr_thread *t = &xr_fdr_thread;
  if (tsc == 0 || XR_UNLIKELY(tsc < t->last_tsc))
    tsc = xr_now();
  /* room for a NewCPUId or TSCWrap, the record, and a CallArgument */
  size_t need = XR_FDR_META_SIZE + XR_FDR_FN_SIZE +
                (type == LOG_ARGS_ENTRY ? XR_FDR_META_SIZE : 0);
  uint8_t *cur = begin_write(t, tsc, need), *done = NULL;
  /* The shadow stack after begin_write, which gives a new thread its stack
   * and empties it at a new generation; when calls left were closed, their
   * records took room: ask for the event's again. */
  int found = cur != NULL ? track(t, id, type == EXIT || type == TAIL, sp, tsc) : 0;
  if (found & TRACK_CLOSED)
    cur = begin_write(t, tsc, need);
  if (found & TRACK_DROP)
    cur = NULL; /* leave_guard keeps the cursor as it is */
  if (XR_LIKELY(cur != NULL)) {
    uint32_t delta;
    uint8_t *p = stamp(t, cur, tsc, &delta);
    switch (type) {
    case ENTRY:
      p = xr_fdr_function(p, id, XR_FDR_FN_ENTER, delta);
      break;
    case LOG_ARGS_ENTRY:
      p = xr_fdr_function(p, id, XR_FDR_FN_ENTER_ARG, delta);
      p = xr_fdr_call_argument(p, arg);
      xr_fdr_set_run_start(t->writer, p);
      break;
    default: { /* exit or tail exit: erase the call if it was short */
      uint64_t threshold = xr_fdr_hot.threshold_ticks;
      if (threshold != 0 && p != xr_fdr_run_start(t->writer)) {
        uint64_t last = t->last_tsc;
        uint8_t *back =
            xr_fdr_rewind(xr_fdr_run_start(t->writer), p, id, tsc, threshold, &last);
        if (back) {
          count_own(&t->writer->erased);
          t->last_tsc = last;
          done = back;
          goto out;
        }
      }
      p = xr_fdr_function(
          p, id, type == EXIT ? XR_FDR_FN_EXIT : XR_FDR_FN_TAIL_EXIT,
          delta);
      if (threshold != 0)
        xr_fdr_set_run_start(t->writer, p);
      break;
    }
    }
    t->last_tsc = tsc;
    done = p;
  }
out:
  leave_guard(t, done);
}

/* The fast path's way out to the full path: the state word as it was on
 * entry, then the full path with the timestamp read (0: none read yet). */
static XR_ALWAYS_INLINE void bail_to_full(struct xr_fdr_writer *w,
                                          uintptr_t state, int32_t id,
                                          unsigned type, uint64_t arg,
                                          uintptr_t sp, uint64_t tsc) {
  clear_busy(w, xr_fdr_state_cursor(state));
  BARRIER();
  XR_TEST_POINT(xr_fdr_test_bail_window, ());
  function_event_full(id, type, arg, sp, tsc);
}

/* The common case, written so that it makes no call (no register saves in
 * its prologue): a thread with a buffer of this generation, room for the
 * record, on the same CPU as its last record, a delta that fits, and a
 * call that nests in the shadow stack's top (an entry below it with room
 * to push; an exit of the top call itself). Anything else leaves through
 * a tail call to function_event_full, with the state word as it was on
 * entry. */
static XR_ALWAYS_INLINE void function_event(int32_t id, unsigned type,
                                            uint64_t arg, uintptr_t sp) {
  struct xr_fdr_thread *t = &xr_fdr_thread;
  struct xr_fdr_writer *w = t->writer;
  /* The busy bit serves as both the re-entrancy guard and the busy flag: a
   * signal landing while it is set finds it set and goes to the full path,
   * which counts the nested drop; xr_in_handler (set by the full path and
   * by thread-exit hooks) is checked there, not here: the full path holds
   * busy for as long as it holds xr_in_handler (enter_guard). */
  if (XR_UNLIKELY(w == NULL || xr_fdr_writer_enter(w)))
    goto full;
  uintptr_t state = load_state(w);
  /* The checks one after another, each value dead after its compare: few
   * registers live, so no register needs saving. fast_epoch equals our
   * epoch only while tracing and while the tick counter and a
   * one-instruction CPU id are usable; when it does not, the full path
   * reads the clock. */
  if (XR_UNLIKELY(t->epoch !=
                  __atomic_load_n(&xr_fdr_hot.fast_epoch, __ATOMIC_ACQUIRE)))
    goto bail_unstamped;
  /* The shadow stack (valid with the writer): a call left by an exception
   * or longjmp, a full stack or an exit that is not the top call's goes to
   * the full path (unstamped: the full path reads the clock). */
  if (type == EXIT || type == TAIL) {
    if (XR_UNLIKELY(t->top->sp != sp))
      goto bail_unstamped;
  } else if (XR_UNLIKELY(t->top->sp <= sp || t->top == t->frames_last)) {
    goto bail_unstamped;
  }
  /* The clock after the busy bit: a signal handler's events are dropped
   * from here on, and any it wrote before came earlier in time too. */
  uint32_t cpu;
  uint64_t tsc = clock_and_cpu(&cpu);
  if (XR_UNLIKELY(cpu != t->cpu))
    goto bail;
  uint64_t delta = tsc - t->last_tsc;
  if (XR_UNLIKELY(delta > INT32_MAX))
    goto bail;
  size_t need = XR_FDR_FN_SIZE + (type == LOG_ARGS_ENTRY ? XR_FDR_META_SIZE : 0);
  uint8_t *p = xr_fdr_state_cursor(state);
  if (XR_UNLIKELY((size_t)(t->end - p) < need))
    goto bail;
  BARRIER(); /* configuration reads stay after the epoch check */
  /* Read again: kept from the check above, it would need a register
   * across the clock read, and a save in the prologue. */
  struct xr_fdr_frame *top = t->top;
  if (type == ENTRY) {
    p = xr_fdr_function(p, id, XR_FDR_FN_ENTER, (uint32_t)delta);
    top[1].sp = sp;
    top[1].id = id;
    t->top = top + 1;
  } else if (type == LOG_ARGS_ENTRY) {
    p = xr_fdr_function(p, id, XR_FDR_FN_ENTER_ARG, (uint32_t)delta);
    p = xr_fdr_call_argument(p, arg);
    xr_fdr_set_run_start(w, p);
    top[1].sp = sp;
    top[1].id = id;
    t->top = top + 1;
  } else { /* exit or tail exit */
    bool erasing = xr_fdr_hot.threshold_ticks != 0;
    if (erasing && p != xr_fdr_run_start(w))
      goto bail; /* maybe a short call to erase: the full path looks */
    p = xr_fdr_function(p, id, type == EXIT ? XR_FDR_FN_EXIT : XR_FDR_FN_TAIL_EXIT,
                        (uint32_t)delta);
    if (erasing) /* run_start matters only to erasure */
      xr_fdr_set_run_start(w, p);
    t->top = top - 1;
  }
  t->last_tsc = tsc;
  BARRIER();
  clear_busy(w, p); /* the event's end: new cursor, busy off */
  return;
bail:
  bail_to_full(w, state, id, type, arg, sp, tsc);
  return;
bail_unstamped: /* two exits, not one with tsc = 0 merged in: the merged
                 * value costs the common case a saved register */
  bail_to_full(w, state, id, type, arg, sp, 0);
  return;
full:
  function_event_full(id, type, arg, sp, 0);
}

/* The stack pointer an event without one stands for (a caller that cannot
 * pass it, core/dispatch/handlers.h), so that the shadow stack does what
 * matching by id did: an entry nests in the top call, an exit is the
 * newest open call of its function (not open: below everything, so it
 * pops nothing). Read before the busy bit: a signal handler's events in
 * between leave the stack as they found it. */
static XR_ALWAYS_INLINE uintptr_t implied_sp(int32_t id, bool exit) {
  const struct xr_fdr_thread *t = &xr_fdr_thread;
  const struct xr_fdr_frame *f = t->writer != NULL ? t->top : NULL;
  if (f == NULL)
    return exit ? 0 : UINTPTR_MAX - 1;
  if (!exit)
    return f->sp - 1;
  for (; f->sp != UINTPTR_MAX; f--)
    if (f->id == id)
      return f->sp;
  return 0;
}

/* An arg-logging entry reaching an arg0 handler has no argument. */
static XR_ALWAYS_INLINE unsigned arg0_kind(enum XRayEntryType type) {
  return type == LOG_ARGS_ENTRY ? ENTRY : (unsigned)type;
}

/* Entries and exits each get their own copy of the fast path: with the
 * kind a constant, it is one register fewer, and the shadow stack's
 * values fit in the caller-saved registers (no save in the prologue). */
/* The two plain handlers start on a 64-byte boundary, so the fast path's
 * speed does not depend on the size of the code before it (as the
 * trampolines' full paths, docs/performance.md). */
__attribute__((aligned(64))) void xr_fdr_handle_arg0(int32_t id, enum XRayEntryType type,
                                                     uintptr_t sp) {
  if (type == ENTRY)
    function_event(id, ENTRY, 0, sp);
  else if (type == EXIT)
    function_event(id, EXIT, 0, sp);
  else
    function_event(id, arg0_kind(type), 0, sp);
}

__attribute__((aligned(64))) void xr_fdr_handle_arg1(int32_t id, enum XRayEntryType type,
                                                     uint64_t arg, uintptr_t sp) {
  function_event(id, (unsigned)type, arg, sp);
}

void xr_fdr_handle_arg0_no_sp(int32_t id, enum XRayEntryType type) {
  unsigned kind = arg0_kind(type);
  function_event(id, kind, 0, implied_sp(id, kind == EXIT || kind == TAIL));
}

void xr_fdr_handle_arg1_no_sp(int32_t id, enum XRayEntryType type, uint64_t arg) {
  function_event(id, (unsigned)type, arg, implied_sp(id, type == EXIT || type == TAIL));
}

/* The slow-call watch: one compare and one byte load per event on top of
 * the plain handler (installed instead of it only when the trigger is on,
 * so the plain handler carries nothing for it); only the watched
 * functions' events take the slow path, after their record is written. */
static XR_ALWAYS_INLINE void watch(int32_t id, unsigned type) {
  uint32_t i = (uint32_t)id - 1u;
  if (XR_UNLIKELY(i < xr_fdr_hot.watch_count && xr_fdr_hot.watch_set[i])) {
    struct xr_fdr_watch_event e = {id, type == LOG_ARGS_ENTRY ? ENTRY : type};
    xr_call_preserving_vectors(xr_fdr_watch_slow, &e);
  }
}

void xr_fdr_handle_arg0_watch(int32_t id, enum XRayEntryType type, uintptr_t sp) {
  unsigned kind = arg0_kind(type);
  function_event(id, kind, 0, sp);
  watch(id, kind);
}

void xr_fdr_handle_arg1_watch(int32_t id, enum XRayEntryType type, uint64_t arg,
                              uintptr_t sp) {
  function_event(id, (unsigned)type, arg, sp);
  watch(id, (unsigned)type);
}

void xr_fdr_handle_arg0_watch_no_sp(int32_t id, enum XRayEntryType type) {
  unsigned kind = arg0_kind(type);
  function_event(id, kind, 0, implied_sp(id, kind == EXIT || kind == TAIL));
  watch(id, kind);
}

void xr_fdr_handle_arg1_watch_no_sp(int32_t id, enum XRayEntryType type, uint64_t arg) {
  function_event(id, (unsigned)type, arg, implied_sp(id, type == EXIT || type == TAIL));
  watch(id, (unsigned)type);
}

static XR_ALWAYS_INLINE void payload_event(bool typed, uint16_t event_type,
                                           const void *data, size_t size) {
  if (XR_UNLIKELY(!enter_guard()))
    return;
  uint64_t tsc = xr_now(); /* after the guard: see function_event_full */
  struct xr_fdr_thread *t = &xr_fdr_thread;
  uint8_t *cur, *done = NULL;
  /* Empty events are invalid for readers; oversized ones fit no buffer;
   * version 1 has no typed events. */
  if (XR_UNLIKELY(size == 0 || size > xr_fdr_hot.max_event_size ||
                  (typed && xr_fdr_hot.version < 5))) {
    xr_call_preserving_vectors(xr_fdr_count_drop_slow, t);
  } else if (XR_LIKELY((cur = begin_write(t, tsc, 2 * XR_FDR_META_SIZE +
                                                      size)) != NULL)) {
    if (XR_UNLIKELY(typed && xr_fdr_hot.version < 5)) {
      done = cur; /* re-initialised as version 1 meanwhile */
      goto out;
    }
    uint32_t delta;
    uint8_t *p = stamp(t, cur, tsc, &delta);
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
    xr_fdr_set_run_start(t->writer, p);
    t->last_tsc = tsc;
    done = p;
  }
out:
  leave_guard(t, done);
}

void xr_fdr_handle_custom(void *data, size_t size) {
  payload_event(false, 0, data, size);
}

void xr_fdr_handle_typed(uint16_t type, const void *data, size_t size) {
  payload_event(true, type, data, size);
}

/* An entry or exit with the values argument capture took (fdr_args.c, the
 * argument sink, calls it from a full handler): the full path's steps
 * (guard, buffer, shadow stack, stamp), then in one reservation, so that
 * no buffer boundary splits them: an entry of kind 3 and one CallArgument
 * per value v[0..n), or an exit; then the custom event whose payload is
 * `event` (event_size bytes; 0: none) at the same time. Never erased at a
 * threshold: run_start moves past them, so an exit after them finds no
 * entry to rewind to, and an exit with its value is written whatever the
 * call lasted (the values are what was asked for). In a section of its
 * own, so that the handlers above keep their layout in .text (clang puts
 * external functions before this file's static ones). */
__attribute__((section(".text.xr_fdr_values"))) void
xr_fdr_handle_values(int32_t id, bool exit, const struct xr_arg_value *v, size_t n,
                     const void *event, size_t event_size, uintptr_t sp) {
  if (XR_UNLIKELY(!enter_guard()))
    return;
  XR_TEST_POINT(xr_fdr_test_full_head, ());
  struct xr_fdr_thread *t = &xr_fdr_thread;
  uint64_t tsc = xr_now(); /* after the guard: see function_event_full */
  /* room for a NewCPUId or TSCWrap, the record, its values and the event */
  size_t need = XR_FDR_META_SIZE + XR_FDR_FN_SIZE + n * XR_FDR_META_SIZE +
                (event_size != 0 ? XR_FDR_META_SIZE + event_size : 0);
  uint8_t *cur = begin_write(t, tsc, need), *done = NULL;
  int found = cur != NULL ? track(t, id, exit, sp, tsc) : 0;
  if (found & TRACK_CLOSED)
    cur = begin_write(t, tsc, need);
  if (found & TRACK_DROP)
    cur = NULL; /* leave_guard keeps the cursor as it is */
  if (XR_LIKELY(cur != NULL)) {
    uint32_t delta;
    uint8_t *p = stamp(t, cur, tsc, &delta);
    p = xr_fdr_function(p, id, exit ? XR_FDR_FN_EXIT : XR_FDR_FN_ENTER_ARG, delta);
    for (size_t i = 0; i < n; i++)
      p = xr_fdr_call_value(p, v[i].bits, v[i].what, v[i].format);
    if (event_size != 0) {
      if (xr_fdr_hot.version >= 5)
        p = xr_fdr_custom_event(p, (int32_t)event_size, 0);
      else /* v1 marker: absolute TSC, the same as the record's */
        p = xr_fdr_custom_event_v1(p, (int32_t)event_size, tsc);
      p = xr_fdr_copy(p, event, event_size);
    }
    xr_fdr_set_run_start(t->writer, p);
    t->last_tsc = tsc;
    done = p;
  }
  leave_guard(t, done);
}
