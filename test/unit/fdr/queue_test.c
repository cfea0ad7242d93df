/* buffer_queue.c: sizes, exhaustion, the flight-recorder order, overwrite
 * counts, concurrent acquire/release from several threads, and the writer
 * registry (claim/free on core's thread list, the fork child, quiesce
 * waiting only for busy writers, and not for one that is leaving). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/thread/quiesce.h"
#include "fdr/buffer_queue.h"
#include "resident_pages.h"

/* Index of the first buffer at or after `from` holding data, or q->count. */
static size_t next_used(const struct xr_fdr_queue *q, size_t from) {
  while (from < q->count && q->buffers[from].extents == 0)
    from++;
  return from;
}

static void bad_sizes_are_refused(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  errno = 0;
  assert_int_equal(xr_fdr_queue_init(&q, 0, 4), -1);
  assert_int_equal(errno, EINVAL);
  assert_int_equal(xr_fdr_queue_init(&q, 256, 0), -1);
  assert_int_equal(errno, EINVAL);
  errno = 0;
  assert_int_equal(xr_fdr_queue_init(&q, SIZE_MAX / 2, 4), -1);
  assert_int_equal(errno, EINVAL);
  /* representable but far beyond the address space: mmap says no */
  assert_int_equal(xr_fdr_queue_init(&q, 1u << 30, 1u << 24), -1);
  assert_null(q.buffers);
}

static void layout_and_exhaustion(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, 200, 3), 0);
  assert_int_equal(q.count, 3);
  struct xr_fdr_buffer *b[3];
  for (int i = 0; i < 3; i++) {
    b[i] = xr_fdr_queue_acquire(&q);
    assert_non_null(b[i]);
    assert_int_equal(b[i]->extents, 0);
    /* 16 reserved bytes before the data, writable */
    memset(b[i]->data - XR_FDR_PREFIX, 0xAB, XR_FDR_PREFIX + 200);
    assert_int_equal(xr_fdr_queue_index_of(&q, b[i]->data), b[i]->index);
    assert_int_equal(xr_fdr_queue_index_of(&q, b[i]->data - XR_FDR_PREFIX),
                     b[i]->index);
  }
  assert_true(b[0] != b[1] && b[1] != b[2] && b[0] != b[2]);
  /* never-used buffers go first, in order */
  assert_int_equal(b[0]->index, 0);
  assert_int_equal(b[1]->index, 1);
  assert_int_equal(b[2]->index, 2);
  /* all held: acquisition fails at once, never blocks */
  assert_null(xr_fdr_queue_acquire(&q));
  assert_int_equal(next_used(&q, 0), 3);
  b[1]->extents = 40;
  assert_int_equal(next_used(&q, 0), 1);
  assert_int_equal(next_used(&q, 2), 3);
  xr_fdr_queue_destroy(&q);
  assert_null(q.buffers);
}

static void oldest_release_is_overwritten_first(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, 256, 3), 0);
  struct xr_fdr_buffer *a = xr_fdr_queue_acquire(&q);
  struct xr_fdr_buffer *b = xr_fdr_queue_acquire(&q);
  struct xr_fdr_buffer *c = xr_fdr_queue_acquire(&q);
  a->extents = 10;
  b->extents = 20;
  c->extents = 30;
  xr_fdr_queue_release(&q, b); /* released first */
  xr_fdr_queue_release(&q, c);
  xr_fdr_queue_release(&q, a);
  assert_int_equal(q.overwritten, 0);
  /* the one released longest ago is re-used, its data dropped */
  assert_ptr_equal(xr_fdr_queue_acquire(&q), b);
  assert_int_equal(b->extents, 0);
  assert_int_equal(q.overwritten, 1);
  assert_ptr_equal(xr_fdr_queue_acquire(&q), c);
  assert_int_equal(q.overwritten, 2);
  /* a released empty buffer costs no overwrite */
  c->extents = 0;
  xr_fdr_queue_release(&q, c);
  assert_ptr_equal(xr_fdr_queue_acquire(&q), a);
  assert_ptr_equal(xr_fdr_queue_acquire(&q), c);
  assert_int_equal(q.overwritten, 3);
  assert_null(xr_fdr_queue_acquire(&q));
  /* reset: everything free and empty, counters cleared */
  xr_fdr_queue_reset(&q);
  assert_int_equal(q.overwritten, 0);
  assert_int_equal(next_used(&q, 0), 3);
  assert_ptr_equal(xr_fdr_queue_acquire(&q), a);
  xr_fdr_queue_destroy(&q);
}

/* Several threads acquire, fill the whole buffer with their own byte, check
 * nobody else wrote into it, and release, many times. With fewer buffers
 * than threads some acquisitions fail; each success and failure is counted
 * and the totals must add up. */
enum { THREADS = 6, ROUNDS = 3000, NBUF = 4, BSIZE = 512 };
static struct xr_fdr_queue shared_q;
static int ok_count[THREADS], fail_count[THREADS], corrupt;

static void *hammer(void *arg) {
  int me = (int)(intptr_t)arg;
  for (int r = 0; r < ROUNDS; r++) {
    struct xr_fdr_buffer *b = xr_fdr_queue_acquire(&shared_q);
    if (!b) {
      fail_count[me]++;
      sched_yield();
      continue;
    }
    ok_count[me]++;
    memset(b->data, me + 1, BSIZE);
    b->extents = BSIZE;
    for (int i = 0; i < BSIZE; i += 61)
      if (b->data[i] != me + 1)
        __atomic_add_fetch(&corrupt, 1, __ATOMIC_RELAXED);
    if (b->data[BSIZE - 1] != me + 1)
      __atomic_add_fetch(&corrupt, 1, __ATOMIC_RELAXED);
    xr_fdr_queue_release(&shared_q, b);
  }
  return NULL;
}

static void concurrent_acquire_release(void **s) {
  (void)s;
  assert_int_equal(xr_fdr_queue_init(&shared_q, BSIZE, NBUF), 0);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *)(intptr_t)i),
                     0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  assert_int_equal(corrupt, 0);
  int ok = 0;
  for (int i = 0; i < THREADS; i++) {
    assert_int_equal(ok_count[i] + fail_count[i], ROUNDS);
    ok += ok_count[i];
  }
  assert_true(ok > 0);
  /* every successful acquisition but the first NBUF overwrote data */
  assert_int_equal(shared_q.overwritten, ok - NBUF);
  /* all released: every buffer can be taken once more, then none */
  for (int i = 0; i < NBUF; i++)
    assert_non_null(xr_fdr_queue_acquire(&shared_q));
  assert_null(xr_fdr_queue_acquire(&shared_q));
  xr_fdr_queue_destroy(&shared_q);
}

static void writers_claim_and_free(void **s) {
  (void)s;
  xr_quiesce_setup();
  enum { N = 300 }; /* more than two chunks */
  static struct xr_fdr_writer *w[N];
  for (int i = 0; i < N; i++) {
    w[i] = xr_fdr_writer_claim();
    assert_non_null(w[i]);
    assert_true(w[i]->link.registered);
    for (int j = 0; j < i; j++)
      assert_ptr_not_equal(w[i], w[j]);
  }
  __atomic_add_fetch(&w[3]->dropped, 5, __ATOMIC_RELAXED);
  __atomic_add_fetch(&w[299]->dropped, 2, __ATOMIC_RELAXED);
  __atomic_add_fetch(&w[5]->nested, 4, __ATOMIC_RELAXED);
  __atomic_add_fetch(&w[6]->erased, 3, __ATOMIC_RELAXED);
  assert_int_equal(xr_fdr_writers_dropped(), 7);
  assert_int_equal(xr_fdr_writers_nested(), 4);
  assert_int_equal(xr_fdr_writers_erased(), 3);
  /* a freed record is the next one claimed, its counts kept (they count
   * per generation, whichever thread made them) */
  struct xr_fdr_writer *freed = w[3];
  xr_fdr_writer_free(w[3]);
  assert_int_equal(xr_fdr_writers_dropped(), 7);
  w[3] = xr_fdr_writer_claim();
  assert_ptr_equal(w[3], freed);
  assert_int_equal(xr_fdr_writers_dropped(), 7);
  xr_fdr_writers_reset_counters();
  assert_int_equal(xr_fdr_writers_dropped(), 0);
  assert_int_equal(xr_fdr_writers_nested(), 0);
  assert_int_equal(xr_fdr_writers_erased(), 0);
  /* all idle: quiesce returns at once */
  assert_true(xr_fdr_writers_quiesce(1000000));
  /* a busy record that never clears: quiesce gives up at its bound */
  w[7]->state = XR_FDR_BUSY;
  assert_false(xr_fdr_writers_quiesce(2000000));
  /* fork child: every record but ours is spare again (w[7]'s busy bit
   * with it), ours alone is live: the records claimed next are all the
   * others, ours never */
  __atomic_add_fetch(&w[8]->dropped, 1, __ATOMIC_RELAXED);
  xr_fdr_writers_fork_child(w[0]);
  assert_true(w[0]->link.registered);
  assert_int_equal(xr_fdr_writers_dropped(), 1); /* the parent's, until reset */
  assert_true(xr_fdr_writers_quiesce(1000000));
  static struct xr_fdr_writer *again[2 * N];
  size_t seen = 0;
  for (int i = 0; i < 2 * N; i++) {
    again[i] = xr_fdr_writer_claim();
    assert_ptr_not_equal(again[i], w[0]);
    assert_int_equal(again[i]->state, 0);
    for (int k = 1; k < N; k++)
      seen += again[i] == w[k];
  }
  assert_int_equal(seen, N - 1);
  for (int i = 0; i < 2 * N; i++)
    xr_fdr_writer_free(again[i]);
  xr_fdr_writer_free(w[0]);
}

/* How long the two tests below let quiesce wait for the other thread: that
 * thread may not run for seconds on a loaded machine (the TSan phase, two
 * shared cores), and quiesce giving up then fails the test. Where the code
 * is right it returns as soon as the thread has run. */
#define QUIESCE_BOUND_NS (60ull * 1000000000u)

/* A writer inside an event: quiesce must not return before it leaves. The
 * writer leaves once the quiescer has started and a few yields later; the
 * quiescer records the busy flag it sees when quiesce returns. */
static struct xr_fdr_writer *busy_writer;
static int quiesce_started;
static int busy_seen_at_return = 99;
static void *leave_later(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&quiesce_started, __ATOMIC_ACQUIRE))
    sched_yield();
  for (int i = 0; i < 100; i++)
    sched_yield();
  __atomic_store_n(&busy_writer->state, 0, __ATOMIC_RELEASE);
  return NULL;
}

static void *quiescer(void *arg) {
  bool *result = arg;
  __atomic_store_n(&quiesce_started, 1, __ATOMIC_RELEASE);
  *result = xr_fdr_writers_quiesce(QUIESCE_BOUND_NS);
  busy_seen_at_return = xr_fdr_writer_busy(busy_writer);
  return NULL;
}

static void quiesce_waits_for_busy_writer(void **s) {
  (void)s;
  busy_writer = xr_fdr_writer_claim();
  busy_writer->state = XR_FDR_BUSY;
  bool result = false;
  pthread_t q, w;
  assert_int_equal(pthread_create(&q, NULL, quiescer, &result), 0);
  assert_int_equal(pthread_create(&w, NULL, leave_later, NULL), 0);
  pthread_join(w, NULL);
  pthread_join(q, NULL);
  assert_true(result);
  assert_int_equal(busy_seen_at_return, 0);
  xr_fdr_writer_free(busy_writer);
}

/* A thread that exits while finalize waits for busy writers: its record
 * leaves (xr_fdr_writer_free) while the quiescer holds the registry lock,
 * which the leaving thread needs. free clears the busy bit before it takes
 * the lock, so the quiescer sees the thread idle and lets go; were it the
 * other way round, both would wait until the quiescer's deadline and
 * quiesce would report a writer stuck in its event. The leaving thread
 * starts once the quiescer is inside its wait (this file links with
 * --wrap=xr_quiesce_wait_step), so the lock is held then. */
bool __real_xr_quiesce_wait_step(unsigned *steps, uint64_t deadline_ns);
static int waiting_inside_quiesce;
bool __wrap_xr_quiesce_wait_step(unsigned *steps, uint64_t deadline_ns) {
  __atomic_store_n(&waiting_inside_quiesce, 1, __ATOMIC_RELEASE);
  return __real_xr_quiesce_wait_step(steps, deadline_ns);
}

static struct xr_fdr_writer *exiting_writer;
static void *exit_while_quiesced(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&waiting_inside_quiesce, __ATOMIC_ACQUIRE))
    sched_yield();
  xr_fdr_writer_free(exiting_writer); /* the thread-exit hook's last step */
  return NULL;
}

static void quiesce_lets_an_exiting_writer_leave(void **s) {
  (void)s;
  exiting_writer = xr_fdr_writer_claim();
  exiting_writer->state = XR_FDR_BUSY;
  __atomic_store_n(&waiting_inside_quiesce, 0, __ATOMIC_RELAXED);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, exit_while_quiesced, NULL), 0);
  assert_true(xr_fdr_writers_quiesce(QUIESCE_BOUND_NS));
  pthread_join(t, NULL);
  assert_false(xr_fdr_writer_busy(exiting_writer));
}

/* A buffer's pages are faulted in by its holder a step at a time, ahead of
 * its writes (the controller asks before its room ends); buffers nobody
 * takes stay unbacked. */
static void buffers_are_populated_in_steps(void **s) {
  (void)s;
  void *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(probe != MAP_FAILED);
  int supported = madvise(probe, 4096, XR_MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  enum { SIZE = 2560 * 1024, STEP = XR_FDR_POPULATE_STEP };
  _Static_assert(2 * STEP < SIZE && SIZE < 3 * STEP, "three steps");
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, SIZE, 4), 0);
  struct xr_fdr_buffer *b = xr_fdr_queue_acquire(&q);
  assert_ptr_equal(b, &q.buffers[0]);
  const uint8_t *data = b->data;
  assert_int_equal(b->populated, 0);
  assert_int_equal(resident_pages(data, data + SIZE), 0);
  if (!supported) {
    /* a kernel before 5.14: one call gives up, the pages fault in later */
    assert_int_equal(xr_fdr_queue_populate_next(&q, b), SIZE);
    xr_fdr_queue_destroy(&q);
    skip();
  }
  assert_int_equal(xr_fdr_queue_populate_next(&q, b), STEP);
  /* the first step's pages, and none after them */
  assert_int_equal(resident_pages(data, data + STEP), pages_spanned(data, data + STEP));
  assert_int_equal(resident_pages(data + STEP + 4096, data + SIZE), 0);
  assert_int_equal(xr_fdr_queue_populate_next(&q, b), 2 * STEP);
  assert_int_equal(xr_fdr_queue_populate_next(&q, b), SIZE);
  assert_int_equal(xr_fdr_queue_populate_next(&q, b), SIZE); /* done */
  assert_int_equal(resident_pages(data, data + SIZE), pages_spanned(data, data + SIZE));
  /* the third buffer's own pages (not the one it may share with the second) */
  const uint8_t *third = q.buffers[2].data;
  assert_int_equal(resident_pages(third + 4096, third + SIZE), 0);
  /* released and taken again: still populated */
  xr_fdr_queue_release(&q, b);
  struct xr_fdr_buffer *again[4];
  for (int i = 0; i < 4; i++)
    again[i] = xr_fdr_queue_acquire(&q);
  assert_int_equal(again[3]->index, 0);
  assert_int_equal(again[3]->populated, SIZE);
  /* a fork child's reset: populate again (the pages are copy-on-write) */
  xr_fdr_queue_reset(&q);
  assert_int_equal(q.buffers[0].populated, 0);
  xr_fdr_queue_destroy(&q);
}

/* The busy bit: set in one instruction, the cursor kept; says whether it
 * was set already (the nested-event test of the fast path). */
static void writer_enter_sets_busy_and_keeps_cursor(void **s) {
  (void)s;
  struct xr_fdr_writer *w = xr_fdr_writer_claim();
  assert_non_null(w);
  static uint8_t buffer[64];
  w->state = (uintptr_t)(buffer + 24);
  assert_false(xr_fdr_writer_busy(w));
  assert_false(xr_fdr_writer_enter(w));
  assert_true(xr_fdr_writer_busy(w));
  assert_ptr_equal(xr_fdr_state_cursor(w->state), buffer + 24);
  assert_true(xr_fdr_writer_enter(w)); /* nested: already busy */
  assert_ptr_equal(xr_fdr_state_cursor(w->state), buffer + 24);
  xr_fdr_writer_free(w); /* busy off, the cursor kept */
  assert_int_equal(w->state, (uintptr_t)(buffer + 24));
}

/* A thread that exits after finalize closed the epoch keeps its buffer held
 * (xr_fdr_thread_exit: it may no longer give it back) and frees its
 * record; finalize's close still finds how far the thread's records go. */
static void close_reads_an_exited_holders_cursor(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, 256, 2), 0);
  struct xr_fdr_writer *w = xr_fdr_writer_claim();
  struct xr_fdr_buffer *b = xr_fdr_queue_acquire_for(&q, w);
  assert_non_null(b);
  b->extents = 32; /* the preamble, as the slow path sets it */
  w->state = (uintptr_t)(b->data + 96) | XR_FDR_BUSY; /* the exit hook */
  xr_fdr_writer_free(w);
  assert_int_equal(xr_fdr_queue_close(&q, NULL), 0);
  assert_int_equal(b->flush_extents, 96);
  xr_fdr_queue_destroy(&q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_sizes_are_refused),
      cmocka_unit_test(layout_and_exhaustion),
      cmocka_unit_test(oldest_release_is_overwritten_first),
      cmocka_unit_test(concurrent_acquire_release),
      cmocka_unit_test(writers_claim_and_free),
      cmocka_unit_test(quiesce_waits_for_busy_writer),
      cmocka_unit_test(quiesce_lets_an_exiting_writer_leave),
      cmocka_unit_test(buffers_are_populated_in_steps),
      cmocka_unit_test(writer_enter_sets_busy_and_keeps_cursor),
      cmocka_unit_test(close_reads_an_exited_holders_cursor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
