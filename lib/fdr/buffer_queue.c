/* FDR buffer queue and writer registry (see buffer_queue.h). Cold code:
 * reached once per buffer (about every thousand events) and at control
 * calls, always through xr_call_preserving_vectors from the lean handlers. */
#include "fdr/buffer_queue.h"
#include "core/modes/mode_stats.h"
#include "core/thread/quiesce.h"

#include <errno.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define A_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define A_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

int xr_fdr_queue_init(struct xr_fdr_queue *q, size_t buffer_size,
                      size_t count) {
  *q = (struct xr_fdr_queue){0};
  if (buffer_size == 0 || count == 0) {
    errno = EINVAL;
    return -1;
  }
  /* Layout: control array, then per buffer [prefix | data], 64-aligned. */
  size_t stride = round_up(XR_FDR_PREFIX + buffer_size, 64);
  size_t ctl = round_up(count * sizeof(struct xr_fdr_buffer), 4096);
  size_t per_buffer = stride + 2 * XR_FDR_SCRATCH_ENTRY;
  size_t fixed = ctl + 2 * (XR_FDR_SCRATCH_ENTRY + XR_FDR_SCRATCH_LOG);
  if (stride < buffer_size || count > SIZE_MAX / sizeof(struct xr_fdr_buffer) ||
      count > (SIZE_MAX - fixed) / per_buffer) {
    errno = EINVAL;
    return -1;
  }
  size_t total = fixed + count * per_buffer;
  void *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  q->buffers = (struct xr_fdr_buffer *)m;
  for (size_t i = 0; i < count; i++) {
    struct xr_fdr_buffer *b = &q->buffers[i];
    b->data = (uint8_t *)m + ctl + i * stride + XR_FDR_PREFIX;
    b->index = (uint32_t)i;
  }
  size_t slot = (count + 1) * XR_FDR_SCRATCH_ENTRY + XR_FDR_SCRATCH_LOG;
  q->scratch[0] = (uint8_t *)m + ctl + count * stride;
  q->scratch[1] = q->scratch[0] + slot;
  q->count = count;
  q->buffer_size = buffer_size;
  q->stride = stride;
  q->mapping = m;
  q->mapping_size = total;
  return 0;
}

void xr_fdr_queue_destroy(struct xr_fdr_queue *q) {
  if (q->mapping)
    munmap(q->mapping, q->mapping_size);
  *q = (struct xr_fdr_queue){0};
}

size_t xr_fdr_queue_populate_step(struct xr_fdr_queue *q,
                                  struct xr_fdr_buffer *b, size_t step) {
  size_t done = __atomic_load_n(&b->populated, __ATOMIC_RELAXED);
  if (done >= q->buffer_size)
    return q->buffer_size;
  size_t upto = q->buffer_size - done > step ? done + step : q->buffer_size;
  uintptr_t from = ((uintptr_t)b->data + done) & ~(uintptr_t)(XR_PAGE_SIZE - 1);
  uintptr_t to = round_up((uintptr_t)b->data + upto, XR_PAGE_SIZE);
  /* Refused (a kernel before 5.14, no memory): the pages will fault in
   * one by one as they are written, as they would have anyway. */
  if (madvise((void *)from, to - from, XR_MADV_POPULATE_WRITE) != 0)
    upto = q->buffer_size;
  /* The other caller (holder or helper) may have gone further meanwhile. */
  while (done < upto &&
         !__atomic_compare_exchange_n(&b->populated, &done, upto, false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return done > upto ? done : upto;
}

struct xr_fdr_buffer *xr_fdr_queue_acquire_for(struct xr_fdr_queue *q,
                                               struct xr_fdr_writer *w) {
  uintptr_t me = w ? (uintptr_t)w : XR_FDR_BUFFER_HELD;
  /* Pick the free buffer released longest ago (never-used ones have seq 0
   * and end the scan at once); a lost CAS means another thread took it:
   * scan again, a bounded number of times, so this never blocks. */
  for (int attempt = 0; attempt < 16; attempt++) {
    struct xr_fdr_buffer *best = NULL;
    uint64_t best_seq = UINT64_MAX;
    for (size_t i = 0; i < q->count; i++) {
      struct xr_fdr_buffer *b = &q->buffers[i];
      if (A_LOAD(&b->holder) != XR_FDR_BUFFER_FREE)
        continue;
      uint64_t seq = __atomic_load_n(&b->release_seq, __ATOMIC_RELAXED);
      if (seq < best_seq) {
        best = b;
        best_seq = seq;
        if (seq == 0)
          break;
      }
    }
    if (!best)
      return NULL;
    /* The holder is named in the same CAS that takes the buffer: whoever
     * sees this buffer held also sees by whom (xr_fdr_queue_close). */
    uintptr_t expected = XR_FDR_BUFFER_FREE;
    if (__atomic_compare_exchange_n(&best->holder, &expected, me, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      /* Taken, filled and released by another thread between our scan and
       * our CAS (ABA): it holds newer data than the scan saw, and taking it
       * would overwrite records while never-used buffers are free (seen
       * under TSan in stress.threads: 1 buffer of 600 overwritten for 500
       * threads). Put it back untouched and scan again. */
      if (__atomic_load_n(&best->release_seq, __ATOMIC_RELAXED) != best_seq) {
        A_STORE(&best->holder, (uintptr_t)XR_FDR_BUFFER_FREE);
        continue;
      }
      if (best->extents != 0)
        __atomic_fetch_add(&q->overwritten, 1, __ATOMIC_RELAXED);
      if (best_seq == 0) { /* first use: the helper's lead moves on */
        uint64_t seen = __atomic_load_n(&q->fresh_taken, __ATOMIC_RELAXED);
        while (seen < best->index + 1u &&
               !__atomic_compare_exchange_n(&q->fresh_taken, &seen,
                                            best->index + 1u, false,
                                            __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED)) {
        }
      }
      /* atomic: a snapshot may read it meanwhile (fdr_snapshot.c) */
      __atomic_store_n(&best->extents, 0, __ATOMIC_RELAXED);
      return best;
    }
  }
  return NULL;
}

void xr_fdr_queue_release(struct xr_fdr_queue *q, struct xr_fdr_buffer *b) {
  uint64_t seq = __atomic_add_fetch(&q->release_counter, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&b->release_seq, seq, __ATOMIC_RELAXED);
  /* Release order: the records and extents are visible before the buffer
   * can be taken by another thread. */
  A_STORE(&b->holder, (uintptr_t)XR_FDR_BUFFER_FREE);
}

void xr_fdr_queue_reset(struct xr_fdr_queue *q) {
  for (size_t i = 0; i < q->count; i++) {
    q->buffers[i].extents = 0;
    q->buffers[i].flush_extents = 0;
    q->buffers[i].release_seq = 0;
    /* In a fork child the pages are shared copy-on-write with the parent:
     * populating again copies them in a few calls, not a fault per page. */
    __atomic_store_n(&q->buffers[i].populated, 0, __ATOMIC_RELAXED);
    A_STORE(&q->buffers[i].holder, (uintptr_t)XR_FDR_BUFFER_FREE);
  }
  q->release_counter = 0;
  q->overwritten = 0;
  q->fresh_taken = 0;
}

size_t xr_fdr_queue_index_of(const struct xr_fdr_queue *q, const void *p) {
  if (q->count == 0)
    return q->count;
  const uint8_t *first = q->buffers[0].data - XR_FDR_PREFIX;
  const uint8_t *at = (const uint8_t *)p;
  if (at < first)
    return q->count;
  size_t i = (size_t)(at - first) / q->stride;
  return i < q->count ? i : q->count;
}

size_t xr_fdr_queue_close(struct xr_fdr_queue *q,
                          const struct xr_fdr_writer *self) {
  /* Ordering argument. A writer that may still run (a straggler: it passed
   * its epoch check before the change and is slow to finish) touches only
   * the buffer it holds, and takes a new one only by a CAS FREE -> itself
   * made while its busy flag is 1 (set before the CAS, cleared with a
   * release store after its last write to the buffer). Here each buffer is
   * either CLOSED by our CAS (so no later acquisition can succeed, and a
   * release that came before it is read by the CAS: its writes happen
   * before ours), or found held by w: the acquire load of the holder reads
   * w's CAS, so w's busy := 1 is visible or a later value of it; busy read
   * as 0 (acquire) means w finished its event and every write it made to
   * the buffer happens before this read. w cannot write again: its next
   * event fails the epoch check (quiesce's membarrier orders it). */
  size_t left_out = 0;
  for (size_t i = 0; i < q->count; i++) {
    struct xr_fdr_buffer *b = &q->buffers[i];
    b->flush_extents = 0;
    uintptr_t h = A_LOAD(&b->holder);
    while (h == XR_FDR_BUFFER_FREE &&
           !__atomic_compare_exchange_n(&b->holder, &h, XR_FDR_BUFFER_CLOSED,
                                        false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    }
    if (h > XR_FDR_BUFFER_HELD) {
      const struct xr_fdr_writer *w = (const struct xr_fdr_writer *)h;
      if (w != self && xr_fdr_writer_busy(w)) {
        left_out++;
        continue;
      }
    }
    uint64_t extents = b->extents;
    if (h > XR_FDR_BUFFER_HELD) {
      const uint8_t *cur = xr_fdr_state_cursor(
          A_LOAD(&((const struct xr_fdr_writer *)h)->state));
      if (cur >= b->data && cur <= b->data + q->buffer_size)
        extents = (uint64_t)(cur - b->data);
    }
    b->flush_extents = extents;
  }
  return left_out;
}

size_t xr_fdr_queue_next_flushed(const struct xr_fdr_queue *q, size_t from) {
  while (from < q->count && q->buffers[from].flush_extents == 0)
    from++;
  return from;
}

/* ---- writer registry ------------------------------------------------- */

/* Core's registry (core/thread/thread_list.h): live writers on a thread list under
 * one lock. What differs is where the records are: mmap'd chunks never
 * unmapped (buffer_queue.h says why), so a record whose thread exited is
 * kept on `spare` for the next thread, not freed. The chunks are listed
 * only for the fork child, which rebuilds both lists from them. */
enum { CHUNK_BYTES = 16384 };
struct writer_chunk {
  struct writer_chunk *next;
  struct xr_fdr_writer slots[(CHUNK_BYTES - 64) / sizeof(struct xr_fdr_writer)];
};
_Static_assert(sizeof(struct writer_chunk) <= CHUNK_BYTES, "chunk size");

static xr_lock registry_lock;
static struct xr_thread_list live, spare; /* under registry_lock */
static struct writer_chunk *chunks;        /* under it too; a push publishes
                                              a whole chunk (release) */

static struct xr_fdr_writer *writer_of(struct xr_thread_link *l) {
  return xr_thread_entry(l, struct xr_fdr_writer, link);
}

struct xr_fdr_writer *xr_fdr_writer_claim(void) {
  struct writer_chunk *fresh = NULL;
  for (;;) {
    uint8_t guard = xr_thread_list_lock(&registry_lock);
    if (fresh != NULL) { /* mapped outside the lock */
      fresh->next = chunks;
      __atomic_store_n(&chunks, fresh, __ATOMIC_RELEASE);
      for (size_t i = 0; i < XR_ARRAY_SIZE(fresh->slots); i++)
        xr_thread_list_add(&spare, &fresh->slots[i].link);
    }
    struct xr_thread_link *l = spare.head;
    if (l != NULL) {
      xr_thread_list_remove(&spare, l);
      /* dropped and the rest stay: counts are per generation */
      __atomic_store_n(&writer_of(l)->state, 0, __ATOMIC_RELAXED);
      xr_thread_list_add(&live, l);
    }
    xr_thread_list_unlock(&registry_lock, guard);
    if (l != NULL)
      return writer_of(l);
    fresh = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh == MAP_FAILED)
      return NULL;
  }
}

void xr_fdr_writer_free(struct xr_fdr_writer *w) {
  /* The cursor stays: a thread that exits once finalize has closed the
   * epoch leaves its buffer held, and xr_fdr_queue_close reads how far its
   * records go from here (claim clears it for the next thread). */
  uintptr_t state = __atomic_load_n(&w->state, __ATOMIC_RELAXED);
  __atomic_store_n(&w->state, state & ~XR_FDR_BUSY, __ATOMIC_RELEASE);
  uint8_t guard = xr_thread_list_lock(&registry_lock);
  xr_thread_list_remove(&live, &w->link);
  xr_thread_list_add(&spare, &w->link);
  xr_thread_list_unlock(&registry_lock, guard);
}

/* A writer registered after this took the lock reads the closed epoch: its
 * lock acquisition follows our release, which follows the caller's epoch
 * change. One registered before is on the list. The lock is held while
 * waiting; no busy writer needs it (claim runs before a writer exists,
 * free clears busy before taking it). */
bool xr_fdr_writers_quiesce(uint64_t timeout_ns) {
  xr_quiesce_fence();
  uint64_t deadline = xr_quiesce_deadline(timeout_ns);
  bool idle = true;
  uint8_t guard = xr_thread_list_lock(&registry_lock);
  for (struct xr_thread_link *l = live.head; l != NULL && idle; l = l->next) {
    unsigned steps = 0;
    while (idle && xr_fdr_writer_busy(writer_of(l)))
      idle = xr_quiesce_wait_step(&steps, deadline);
  }
  xr_thread_list_unlock(&registry_lock, guard);
  return idle;
}

/* Every record, live or spare, under the lock: the uint64_t counter at
 * `offset` summed, or zeroed when `zero`. */
static uint64_t each_counter(size_t offset, bool zero) {
  uint64_t sum = 0;
  uint8_t guard = xr_thread_list_lock(&registry_lock);
  struct xr_thread_link *heads[2] = {live.head, spare.head};
  for (int i = 0; i < 2; i++)
    for (struct xr_thread_link *l = heads[i]; l != NULL; l = l->next) {
      uint64_t *c = (uint64_t *)((char *)writer_of(l) + offset);
      if (zero)
        __atomic_store_n(c, 0, __ATOMIC_RELAXED);
      else
        sum += __atomic_load_n(c, __ATOMIC_RELAXED);
    }
  xr_thread_list_unlock(&registry_lock, guard);
  return sum;
}

uint64_t xr_fdr_writers_dropped(void) {
  return each_counter(offsetof(struct xr_fdr_writer, dropped), false);
}
uint64_t xr_fdr_writers_nested(void) {
  return each_counter(offsetof(struct xr_fdr_writer, nested), false);
}
uint64_t xr_fdr_writers_erased(void) {
  return each_counter(offsetof(struct xr_fdr_writer, erased), false);
}
uint64_t xr_fdr_writers_unmatched(void) {
  return each_counter(offsetof(struct xr_fdr_writer, unmatched), false);
}

/* Recorded: n/a (buffers hold metadata records between the events, and
 * short calls are erased in place: no exact event count without a counter
 * per event). Dropped: events dropped for want of a buffer, too large, or
 * nested in the tracer (relaxed loads of the owners' atomic counters); the
 * oldest buffers a wrapping ring overwrites are not in it. Here because it
 * sums the writers. */
void xr_fdr_stats(struct xr_mode_stats *out) {
  *out = (struct xr_mode_stats){
      .dropped_known = true,
      .dropped = xr_fdr_writers_dropped() + xr_fdr_writers_nested()};
}

void xr_fdr_writers_reset_counters(void) {
  each_counter(offsetof(struct xr_fdr_writer, dropped), true);
  each_counter(offsetof(struct xr_fdr_writer, nested), true);
  each_counter(offsetof(struct xr_fdr_writer, erased), true);
  each_counter(offsetof(struct xr_fdr_writer, unmatched), true);
}

void xr_fdr_writers_fork_child(struct xr_fdr_writer *self) {
  xr_lock_after_fork(&registry_lock);
  spare.head = NULL;
  for (struct writer_chunk *c = chunks; c != NULL; c = c->next)
    for (size_t i = 0; i < XR_ARRAY_SIZE(c->slots); i++) {
      struct xr_fdr_writer *w = &c->slots[i];
      if (w == self)
        continue;
      __atomic_store_n(&w->state, 0, __ATOMIC_RELAXED);
      w->link.registered = false;
      xr_thread_list_add(&spare, &w->link);
    }
  if (self != NULL)
    xr_thread_list_after_fork(&live, &self->link);
  else
    live.head = NULL;
}
