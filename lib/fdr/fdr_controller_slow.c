/* FDR controller slow paths: joining a generation, switching buffers,
 * counting drops, thread exit. Reached from the lean handlers through
 * xr_call_preserving_vectors, so ordinary C and libc are fine here. */
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/thread/thread.h"
#include "fdr/fdr_controller_slow.h"
#include "fdr/fdr_prefault.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_thread.h"
#include "fdr/fdr_triggers.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>


static uint64_t load_epoch(void) {
  return __atomic_load_n(&xr_fdr_hot.epoch, __ATOMIC_ACQUIRE);
}

static size_t capacity(void) {
  /* Version 1 keeps 16 bytes at the end for the EndOfBuffer record. */
  return xr_fdr_queue.buffer_size -
         (xr_fdr_hot.version < 2 ? XR_FDR_META_SIZE : 0);
}

static size_t preamble_size(void) {
  return xr_fdr_hot.version >= 3 ? XR_FDR_PREAMBLE_V5 : XR_FDR_PREAMBLE_V1;
}

/* Where records in b may end: its capacity, or sooner where its pages are
 * not faulted in yet (xr_fdr_queue_populate_next); faults in steps until the
 * first `bytes` fit or the capacity is reached. The fast path's room check
 * against this end brings the writer back here before it writes to pages
 * not faulted in. */
static uint8_t *room_end(struct xr_fdr_buffer *b, size_t cap, size_t bytes) {
  size_t populated = __atomic_load_n(&b->populated, __ATOMIC_RELAXED);
  while (populated < bytes && populated < cap)
    populated = xr_fdr_queue_populate_next(&xr_fdr_queue, b);
  return b->data + (populated < cap ? populated : cap);
}

/* A shadow stack with no room (its slot's mapping failed): every entry
 * goes to the full path, which counts the call as untracked. Only read. */
static struct xr_fdr_frame no_frames[1] = {{UINTPTR_MAX, 0, 0}};

/* Empties the thread's shadow stack: a new slot, or a new generation (the
 * calls open before it were not recorded in it: their exits, if they come,
 * are written as exits without an entry, which the readers drop). */
static void reset_frames(struct xr_fdr_thread *t) {
  struct xr_fdr_frame *f = t->writer->frames;
  if (f != NULL) {
    f[0] = no_frames[0];
    t->top = f;
    t->frames_last = f + XR_FDR_FRAMES - 1;
  } else {
    t->top = t->frames_last = no_frames;
  }
  t->untracked = 0;
}

/* The calling thread's writer slot, claimed on its first event while
 * tracing; NULL when not tracing or no slot can be mapped. */
static struct xr_fdr_writer *claim_writer(struct xr_fdr_thread *t) {
  if (t->writer || !(load_epoch() & 1))
    return t->writer; /* not tracing: no need to know this thread */
  t->writer = xr_fdr_writer_claim();
  if (t->writer) {
    /* Nested drops counted before the slot existed move into it; each step
     * is one instruction, so a signal in between loses nothing. */
    __atomic_fetch_add(&t->writer->nested,
                       __atomic_exchange_n(&t->nested_pending, 0,
                                           __ATOMIC_RELAXED),
                       __ATOMIC_RELAXED);
    if (t->writer->frames == NULL) {
      void *m = mmap(NULL, XR_FDR_FRAMES * sizeof(struct xr_fdr_frame), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      t->writer->frames = m == MAP_FAILED ? NULL : m;
    }
    reset_frames(t);
    xr_thread_arm();
    xr_fdr_triggers_thread_start();
  }
  return t->writer;
}

static void count_drop(struct xr_fdr_thread *t) {
  if (t->writer)
    __atomic_fetch_add(&t->writer->dropped, 1, __ATOMIC_RELAXED);
}

void xr_fdr_prepare_slow(void *arg) {
  struct xr_fdr_prepare_args *a = arg;
  struct xr_fdr_thread *t = a->thread;
  a->ok = false;
  if (!claim_writer(t))
    return;
  struct xr_fdr_writer *w = t->writer;
  (void)xr_fdr_writer_enter(w); /* already set by the caller, or a new slot */
  uint8_t *cur = xr_fdr_state_cursor(__atomic_load_n(&w->state, __ATOMIC_RELAXED));
  /* A real fence here (slow path): busy is visible before the epoch is read,
   * even where membarrier is unavailable. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  uint64_t epoch = load_epoch();
  if (!(epoch & 1))
    goto idle; /* finalizing or stopped: drop quietly */
  if (t->epoch != epoch) {
    /* A new generation: the old buffer belonged to an old queue. */
    t->epoch = epoch;
    t->buffer = NULL;
    cur = t->end = t->begin = NULL;
    reset_frames(t);
  }
  size_t cap = capacity();
  if (t->buffer) {
    /* The room may end where the buffer's pages do: fault in more. */
    t->end = room_end(t->buffer, cap, (size_t)(cur - t->begin) + a->need);
    if ((size_t)(t->end - cur) >= a->need) {
      a->ok = true;
      return;
    }
  }
  if (a->need > cap - preamble_size()) {
    count_drop(t); /* can never fit; keep the current buffer */
    goto idle;
  }
  if (t->buffer) {
    __atomic_store_n(&t->buffer->extents, (uint64_t)(cur - t->begin), __ATOMIC_RELAXED);
    xr_fdr_queue_release(&xr_fdr_queue, t->buffer);
    t->buffer = NULL;
    cur = t->end = NULL;
  }
  struct xr_fdr_buffer *b = xr_fdr_queue_acquire_for(&xr_fdr_queue, w);
  if (!b) {
    count_drop(t);
    goto idle;
  }
  xr_fdr_prefault_wake(); /* the helper's lead moved */
  uint8_t *end = room_end(b, cap, preamble_size() + a->need);
  struct timespec wall;
  clock_gettime(CLOCK_MONOTONIC, &wall);
  uint32_t cpu = xr_cpu_id();
  uint8_t *p = xr_fdr_preamble(b->data, xr_fdr_hot.version, xr_tid(), xr_pid(),
                               wall.tv_sec, (int32_t)(wall.tv_nsec / 1000),
                               (uint16_t)cpu, a->tsc);
  t->buffer = b;
  t->begin = b->data;
  t->end = end;
  xr_fdr_set_run_start(w, p); /* before the state: see fdr_snapshot.c */
  t->cpu = cpu;
  t->last_tsc = a->tsc;
  __atomic_store_n(&b->extents, (uint64_t)(p - b->data), __ATOMIC_RELAXED);
  __atomic_store_n(&w->state, (uintptr_t)p | XR_FDR_BUSY, __ATOMIC_RELAXED);
  a->ok = true;
  return;
idle:
  __atomic_store_n(&w->state, (uintptr_t)cur, __ATOMIC_RELEASE);
}

void xr_fdr_count_drop_slow(void *thread) {
  struct xr_fdr_thread *t = thread;
  claim_writer(t);
  count_drop(t);
}

void xr_fdr_thread_exit(void) {
  struct xr_fdr_thread *t = &xr_fdr_thread;
  struct xr_fdr_writer *w = t->writer;
  if (!w)
    return;
  (void)xr_fdr_writer_enter(w); /* the thread's last event has ended */
  uint8_t *cur = xr_fdr_state_cursor(__atomic_load_n(&w->state, __ATOMIC_RELAXED));
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (t->buffer && t->epoch == load_epoch()) {
    __atomic_store_n(&t->buffer->extents, (uint64_t)(cur - t->begin), __ATOMIC_RELAXED);
    xr_fdr_queue_release(&xr_fdr_queue, t->buffer);
  }
  /* Otherwise the buffer stays held: finalize has closed the epoch, and
   * its close reads the cursor the freed record keeps. */
  t->buffer = NULL;
  t->end = t->begin = NULL;
  t->epoch = 0;
  t->writer = NULL;
  xr_fdr_writer_free(w);
  xr_fdr_triggers_thread_exit();
}

void xr_fdr_thread_forget_after_fork(void) {
  struct xr_fdr_thread *t = &xr_fdr_thread;
  xr_fdr_writers_fork_child(t->writer);
  if (t->writer) /* no cursor; the busy bit as it was */
    __atomic_store_n(&t->writer->state,
                     __atomic_load_n(&t->writer->state, __ATOMIC_RELAXED) &
                         XR_FDR_BUSY,
                     __ATOMIC_RELAXED);
  t->buffer = NULL;
  t->end = t->begin = NULL;
  t->epoch = 0;
}

void xr_fdr_detect_rseq(void) {
  intptr_t off = 0;
  if (xr_rseq_available()) {
    intptr_t cpu_field = xr_rseq_cpu_field();
    int32_t cpu = xr_cpu_at_rseq_field(cpu_field);
    if (cpu >= 0 && cpu_field != 0)
      off = cpu_field;
  }
  xr_fdr_hot.rseq_cpu_offset = off;
  xr_fdr_hot.cpu_source = off != 0 ? XR_FDR_CPU_RSEQ
                          : xr_cpu_method == XR_CPU_ID_INSN ? XR_FDR_CPU_INSN
                          : xr_cpu_method == XR_CPU_ID_WITH_TICKS
                              ? XR_FDR_CPU_WITH_TICKS
                              : XR_FDR_CPU_SLOW;
}
