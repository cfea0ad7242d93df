/* FDR buffer queue and writer registry.
 *
 * Buffers: `count` buffers of `buffer_size` bytes, mmap'd once per
 * generation. A thread holds at most one buffer at a time; acquisition picks
 * a free buffer, never-used ones first, then the one released longest ago
 * (its old data is overwritten: the queue keeps the most recent data, a
 * flight recorder). When every buffer is held by some thread, acquisition
 * fails and the caller drops its events. Lock-free: one CAS per acquisition,
 * one release store per release; never blocks.
 *
 * Writers: one record per tracing thread, on core's thread list
 * (core/thread/thread_list.h) while its thread lives. The records come from mmap'd
 * chunks that are never unmapped, not from TLS: a buffer's holder word
 * names its writer, which snapshots (signal and crash handlers included)
 * and finalize read without a lock, possibly after the thread exited; so a
 * record pointer stays valid for the life of the process whatever
 * generation of buffers exists. A record's busy bit is set while its owner
 * is inside a handler: the guard of core/thread/quiesce.h's protocol, which
 * finalize follows (xr_fdr_writers_quiesce). */
#ifndef XR_FDR_BUFFER_QUEUE_H
#define XR_FDR_BUFFER_QUEUE_H

#include "core/base/common.h"
#include "core/thread/thread.h"
#include "core/thread/thread_list.h"

/* A buffer's `holder` word: FREE, CLOSED (taken by finalize: nobody may
 * acquire it), HELD (held, holder unknown), or the holding writer's slot
 * (slots are 64-aligned, so never 1 or 2). */
enum { XR_FDR_BUFFER_FREE = 0, XR_FDR_BUFFER_CLOSED = 1, XR_FDR_BUFFER_HELD = 2 };

/* Bytes reserved before each buffer's data so a BufferExtents record can be
 * placed right in front of it when buffers are handed out in memory. */
#define XR_FDR_PREFIX 16u

struct xr_fdr_buffer {
  uint8_t *data;            /* buffer_size bytes (XR_FDR_PREFIX before it) */
  uint64_t extents;         /* bytes of records: set at acquisition and
                               release; while held by a writer slot its
                               cursor (in xr_fdr_writer.state) is the
                               truth */
  uintptr_t holder;         /* atomic: XR_FDR_BUFFER_* or the writer slot */
  uint64_t flush_extents;   /* extents as xr_fdr_queue_close found them;
                               written and read only by the control path */
  uint32_t index;
  uint64_t populated;       /* atomic: bytes of data faulted in, from the
                               start (xr_fdr_queue_populate_next); only
                               grows while the queue lives, by the holder
                               or the populating helper (fdr_prefault.h) */
  uint64_t release_seq;     /* 0 = never released; larger = released later */
} __attribute__((aligned(64)));

struct xr_fdr_queue {
  struct xr_fdr_buffer *buffers;
  size_t count;
  size_t buffer_size;
  size_t stride;            /* distance between two buffers' data */
  void *mapping;
  size_t mapping_size;
  uint64_t release_counter; /* atomic */
  uint64_t overwritten;     /* atomic: buffers re-acquired with old data */
  uint64_t fresh_taken;     /* atomic: 1 + the highest index of a buffer
                               taken for the first time (0: none yet);
                               how far fdr_prefault.c's helper runs ahead */
  /* Two scratch areas for snapshots, one per slot: XR_FDR_SCRATCH_ENTRY
   * bytes per buffer and one more (the order they write buffers in, then
   * the blocks read back), then XR_FDR_SCRATCH_LOG bytes for the log
   * writer (fdr_log_writer.h). Mapped with the buffers, committed only when a
   * snapshot touches them, so a signal handler never allocates. */
  uint8_t *scratch[2];
};
#define XR_FDR_SCRATCH_ENTRY 32u
#define XR_FDR_SCRATCH_LOG ((size_t)128 << 10)

/* Maps the buffers (all free, empty). Returns 0, or -1 with errno set
 * (EINVAL for zero sizes or an overflowing total, ENOMEM from mmap). */
XR_HIDDEN int xr_fdr_queue_init(struct xr_fdr_queue *q, size_t buffer_size,
                                size_t count);
/* Unmaps; q becomes empty. Only when no thread can touch the buffers. */
XR_HIDDEN void xr_fdr_queue_destroy(struct xr_fdr_queue *q);

/* Takes a free buffer (extents reset to 0) for writer slot `w` (NULL:
 * unknown holder), or NULL when none is free or the queue is closed. */
struct xr_fdr_writer;
XR_HIDDEN struct xr_fdr_buffer *xr_fdr_queue_acquire_for(
    struct xr_fdr_queue *q, struct xr_fdr_writer *w);
static inline struct xr_fdr_buffer *xr_fdr_queue_acquire(
    struct xr_fdr_queue *q) {
  return xr_fdr_queue_acquire_for(q, NULL);
}
/* Buffer memory is mapped lazily (committed only for buffers somebody
 * takes) and faulted in by its holder ahead of its writes, one step at a
 * time: left to fault page by page under the writer, a fresh 4 KiB page
 * cost a fault every 512 events, a third of an event's cost; one
 * madvise(MADV_POPULATE_WRITE) per step costs less than those faults did
 * and runs in the slow path (figures in docs/performance.md, "Measurements
 * behind design choices"). The step bounds the pause of one call
 * whatever the buffer size; buffers up to a step (the default is 16 KiB)
 * are populated whole when first taken. Recycled buffers are populated
 * already. */
#define XR_FDR_POPULATE_STEP ((size_t)1024 * 1024)
/* Faults in the next `step` bytes of b's data (populate_next: the holder's
 * step, XR_FDR_POPULATE_STEP); returns how many bytes from the
 * start are populated now (buffer_size when all are, or when the kernel
 * refuses: the pages then fault in as they are written). The holder and
 * fdr_prefault.c's helper may both call it for one buffer at once: the
 * count only grows, and faulting in a page already written keeps it. */
XR_HIDDEN size_t xr_fdr_queue_populate_step(struct xr_fdr_queue *q,
                                            struct xr_fdr_buffer *b,
                                            size_t step);
static inline size_t xr_fdr_queue_populate_next(struct xr_fdr_queue *q,
                                                struct xr_fdr_buffer *b) {
  return xr_fdr_queue_populate_step(q, b, XR_FDR_POPULATE_STEP);
}
/* Gives a held buffer back; its data stays until it is re-acquired. */
XR_HIDDEN void xr_fdr_queue_release(struct xr_fdr_queue *q,
                                    struct xr_fdr_buffer *b);
/* Every buffer free and empty (fork child: the parent's data is not ours). */
XR_HIDDEN void xr_fdr_queue_reset(struct xr_fdr_queue *q);
/* Index of the buffer whose data (or prefix) starts at p, or q->count. */
XR_HIDDEN size_t xr_fdr_queue_index_of(const struct xr_fdr_queue *q,
                                       const void *p);
/* Finalize: takes every buffer away from the writers, after the epoch
 * change and xr_fdr_writers_quiesce. Free buffers become CLOSED (no
 * acquisition can succeed any more); a buffer held by a writer that is not
 * busy is kept (its holder can no longer write: the epoch check stops it);
 * a buffer held by a writer still busy (a straggler past the grace period)
 * is left out, its bytes may still change. Records each kept buffer's
 * extents in flush_extents (0 for the left out); returns how many were
 * left out. Readers then use only flush_extents. */
XR_HIDDEN size_t xr_fdr_queue_close(struct xr_fdr_queue *q,
                                    const struct xr_fdr_writer *self);
/* Index of the first buffer at or after `from` with flush_extents > 0
 * (after close), or q->count. */
XR_HIDDEN size_t xr_fdr_queue_next_flushed(const struct xr_fdr_queue *q,
                                           size_t from);

/* One open call of a thread: the sled's stack pointer of its entry
 * (core/base/call_frames.h) and its id. A writer slot keeps XR_FDR_FRAMES
 * of them, its owner's shadow stack (fdr_thread.h), which tells which
 * calls an exception or longjmp left: their exits are written when the
 * next event finds them gone ("xray-unwound N" and N exits). frames[0] is
 * a sentinel (sp UINTPTR_MAX: never gone, never an exit's), so the top is
 * always readable. */
struct xr_fdr_frame {
  uintptr_t sp;
  int32_t id;
  uint32_t pad;
};
enum { XR_FDR_FRAMES = 4096 }; /* per writer slot, sentinel included */

struct xr_fdr_writer {
  uintptr_t state;        /* atomic: the owner's cursor in the buffer it
                             holds (its extents, as xr_fdr_queue_close reads
                             them once the owner is idle), or-ed with
                             XR_FDR_BUSY while the owner is inside a handler
                             (also the FDR fast path's re-entrancy guard).
                             One word, so that the hot path ends an event
                             with one store: cursor and idle together. */
  struct xr_fdr_frame *frames; /* the owner's shadow stack (fdr_thread.h),
                             XR_FDR_FRAMES of them, mapped at the slot's
                             first claim and kept with the slot; NULL when
                             the mapping failed */
  uint64_t dropped;       /* atomic: events dropped for want of a buffer */
  uint64_t nested;        /* events dropped because the owner was already
                             inside the tracer (a signal handler); written
                             only by the owner, read at flush */
  uint64_t erased;        /* calls erased as shorter than the threshold;
                             relaxed stores by the owner, read at flush */
  uint8_t *run_start;     /* atomic, owner writes: [run_start, cursor) holds
                             only plain enter records, which erasure may
                             still rewrite; kept only while the threshold is
                             not 0. Bytes before it are final while the
                             buffer is held: what a snapshot copies of a
                             buffer that is being written (fdr_snapshot.c).
                             Here, not in TLS, because another thread reads
                             it; same cache line as state, so no cost. */
  uint64_t unmatched;     /* exits the owner did not write: their calls
                             were not on its shadow stack (they began
                             before recording); as erased */
  /* Written by other threads when they join or leave the list: on a line
   * of its own, so that costs the owner's events nothing. */
  struct xr_thread_link link __attribute__((aligned(64))); /* live or spare */
} __attribute__((aligned(64)));
/* The owner's run start: stores are release (records before it are written
 * first), loads acquire. Plain moves on x86. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_run_start(const struct xr_fdr_writer *w) {
  return __atomic_load_n(&w->run_start, __ATOMIC_ACQUIRE);
}
static XR_ALWAYS_INLINE void xr_fdr_set_run_start(struct xr_fdr_writer *w,
                                                  uint8_t *p) {
  __atomic_store_n(&w->run_start, p, __ATOMIC_RELEASE);
}

/* The busy bit of xr_fdr_writer.state: the top bit, which
 * xr_owner_test_and_set_top_bit sets and which no cursor has (an address in
 * a buffer mmap'd here: core/thread/thread.h says why on each port). */
#define XR_FDR_BUSY ((uintptr_t)1 << 63)
static XR_ALWAYS_INLINE uint8_t *xr_fdr_state_cursor(uintptr_t state) {
  return (uint8_t *)(state & ~XR_FDR_BUSY);
}
static XR_ALWAYS_INLINE bool xr_fdr_writer_busy(const struct xr_fdr_writer *w) {
  return (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) & XR_FDR_BUSY) != 0;
}
/* Owner only: sets the busy bit and says whether it was set already. Not
 * locked (other threads only read the word): a signal handler on this
 * thread runs wholly before it (and any cursor it advanced is kept) or sees
 * the bit (and drops its event); so the cursor is read after this, never
 * before. Also a compiler barrier. */
static XR_ALWAYS_INLINE bool xr_fdr_writer_enter(struct xr_fdr_writer *w) {
  return xr_owner_test_and_set_top_bit(&w->state);
}

/* A record for the calling thread, registered (on the live list), idle,
 * no cursor; or NULL (mmap failed). Takes the registry's lock
 * (xr_thread_list_lock); never allocates but for mmap. Called with the
 * thread's guard set (a slow path), so never from a signal handler that
 * interrupted the lock's holder on the same thread. */
XR_HIDDEN struct xr_fdr_writer *xr_fdr_writer_claim(void);
/* Thread exit: clears w's busy bit first (the cursor stays, for a buffer
 * it still holds), then takes the lock and moves w to the spare records:
 * a quiesce holding the lock never waits for a writer that is waiting for
 * the lock. Its counters stay. */
XR_HIDDEN void xr_fdr_writer_free(struct xr_fdr_writer *w);

/* Steps b. and c. of core/thread/quiesce.h's protocol, the busy bit being the
 * guard, after the caller closed the epoch (step a.): every writer that
 * may have missed the change has finished its event. Walks the live list
 * under the lock, waiting (bounded by timeout_ns in all) while a writer is
 * busy. Returns true when all were idle, false on timeout. */
XR_HIDDEN bool xr_fdr_writers_quiesce(uint64_t timeout_ns);
/* Sums of the dropped, nested, erased and unmatched counters over every
 * record, live or spare (counts are per generation, whichever thread made
 * them); reset_counters zeroes all four (at init, in a fork child). */
XR_HIDDEN uint64_t xr_fdr_writers_dropped(void);
XR_HIDDEN uint64_t xr_fdr_writers_nested(void);
XR_HIDDEN uint64_t xr_fdr_writers_erased(void);
XR_HIDDEN uint64_t xr_fdr_writers_unmatched(void);
XR_HIDDEN void xr_fdr_writers_reset_counters(void);
/* In a fork child: every record but `self` (NULL: none) belongs to a
 * thread that does not exist here; they become spare, and the live list
 * holds self alone (xr_thread_list_after_fork). Rebuilt from the chunks,
 * not from the lists, which a thread that did not survive may have left
 * half changed. */
XR_HIDDEN void xr_fdr_writers_fork_child(struct xr_fdr_writer *self);

#endif
