/* FDR's populating helper (see fdr_prefault.h).
 *
 * A buffer's first use pays the kernel's backing of its pages. Its writer
 * pays it in steps in the slow path (buffer_queue.h): at 1.5 us a page a
 * few percent of an event's cost, at 20 us a page (VMs whose faults exit
 * to the hypervisor) more than the event itself (docs/performance.md).
 * This thread pays it instead, on whatever CPU is free:
 * - it exists while FDR records with more than XR_FDR_PREFAULT_MIN bytes of
 *   buffers: created at init, after the queue (never in a signal context),
 *   joined at finalize and before the queue is unmapped;
 * - it populates never-used buffers in index order, the order acquisition
 *   hands them out, at most `lead` buffers beyond the highest taken so far
 *   (memory the program may never fill stays unbacked), and skips what a
 *   writer took before it got there (the writer populates that one); then
 *   it waits on a semaphore, which the next acquisition posts;
 * - where transparent huge pages are left to madvise, it marks the buffers
 *   MADV_HUGEPAGE first: one fault backs 2 MiB, and what that fault costs
 *   (zeroing, compaction) is the helper's too, as long as it keeps ahead;
 * - it blocks every signal and never records (its guard stays set);
 * - a fork child has no helper (only the forking thread survives): there
 *   the writers fault their buffers in, as with small buffers.
 * Start costs one pthread_create; nothing waits for the helper. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "fdr/fdr_prefault.h"
#include "core/base/report.h"
#include "core/thread/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sem_t wake;
static bool wake_ready;  /* sem_init done: once per process, never destroyed */
static int waiting;      /* atomic: the helper may be in sem_wait */
static int stopping;     /* atomic: the helper returns at its next look */
static pthread_t helper;
static bool running;     /* control path only: helper is joinable */
static struct xr_fdr_queue *queue;
static size_t lead;      /* buffers ahead of the highest taken */
/* The helper's step: short, so that it leaves a buffer soon after a writer
 * takes it (both faulting the same pages would wait on each other). */
#define STEP ((size_t)64 << 10)

/* The next buffer to populate at or after `next`, or q->count when the
 * lead is reached (or every buffer is done). */
static size_t next_wanted(size_t next) {
  size_t taken = (size_t)__atomic_load_n(&queue->fresh_taken, __ATOMIC_SEQ_CST);
  if (next < taken)
    next = taken; /* taken already: its writer populates it */
  size_t limit = taken + lead < queue->count ? taken + lead : queue->count;
  return next < limit ? next : queue->count;
}

static void *helper_main(void *arg) {
  (void)arg;
  (void)xr_guard_enter(); /* for good: the helper records nothing */
  size_t next = 0;
  for (;;) {
    if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
      return NULL;
    size_t i = next_wanted(next);
    if (i < queue->count) {
      next = i;
      if (xr_fdr_queue_populate_step(queue, &queue->buffers[i], STEP) >=
          queue->buffer_size)
        next++;
      continue;
    }
    if (next >= queue->count ||
        __atomic_load_n(&queue->fresh_taken, __ATOMIC_RELAXED) >= queue->count)
      return NULL; /* every buffer is populated or taken */
    /* Say we wait, then look again: an acquisition that moved the lead
     * after our look sees `waiting` and posts (both sequentially
     * consistent, so one of the two sees the other). */
    __atomic_store_n(&waiting, 1, __ATOMIC_SEQ_CST);
    if (next_wanted(next) < queue->count ||
        __atomic_load_n(&stopping, __ATOMIC_SEQ_CST)) {
      __atomic_store_n(&waiting, 0, __ATOMIC_RELAXED);
      continue;
    }
    while (sem_wait(&wake) != 0 && errno == EINTR) {
    }
  }
}

void xr_fdr_prefault_wake(void) {
  if (__atomic_load_n(&waiting, __ATOMIC_SEQ_CST) &&
      __atomic_exchange_n(&waiting, 0, __ATOMIC_SEQ_CST))
    sem_post(&wake);
}

/* Whether transparent huge pages are given to memory that asks
 * (`[madvise]`); with `[always]` they are given anyway, with `[never]`
 * not at all. */
static bool huge_pages_on_request(void) {
  int fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
                O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char text[128];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0)
    return false;
  text[n] = '\0';
  return strstr(text, "[madvise]") != NULL;
}

bool xr_fdr_prefault_start(struct xr_fdr_queue *q, size_t lead_bytes) {
  xr_fdr_prefault_stop();
  /* Not in a fork child: until exec only async-signal-safe calls are sure
   * there (its writers fault their buffers in). */
  if (lead_bytes == 0 || __atomic_load_n(&xr_process_forked, __ATOMIC_RELAXED) ||
      (uint64_t)q->buffer_size * q->count <= XR_FDR_PREFAULT_MIN)
    return false;
  if (!wake_ready) {
    if (sem_init(&wake, 0, 0) != 0) {
      xr_report(XR_INFO, "xray-fdr: no buffer populating thread "
                            "(sem_init: %s); each thread faults its "
                            "buffers in",
                strerror(errno));
      return false;
    }
    wake_ready = true;
  }
  queue = q;
  lead = lead_bytes / q->buffer_size;
  if (lead == 0)
    lead = 1;
  if (huge_pages_on_request()) {
    uintptr_t from = (uintptr_t)(q->buffers[0].data - XR_FDR_PREFIX);
    uintptr_t to = ((uintptr_t)q->scratch[0]) & ~(uintptr_t)(XR_PAGE_SIZE - 1);
    (void)madvise((void *)from, to - from, MADV_HUGEPAGE); /* a wish */
  }
  __atomic_store_n(&stopping, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&waiting, 0, __ATOMIC_RELAXED);
  int rc = xr_thread_start_own(helper_main, NULL, &helper);
  if (rc != 0) {
    xr_report(XR_INFO, "xray-fdr: no buffer populating thread (%s); each "
                          "thread faults its buffers in",
              strerror(rc));
    return false;
  }
  pthread_setname_np(helper, "xray-prefault");
  running = true;
  return true;
}

void xr_fdr_prefault_stop(void) {
  if (!running)
    return;
  __atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
  sem_post(&wake);
  pthread_join(helper, NULL);
  running = false;
  /* A post the helper did not consume would only make the next one look
   * once for nothing; drain it anyway. */
  while (sem_trywait(&wake) == 0) {
  }
}

void xr_fdr_prefault_fork_child(void) {
  __atomic_store_n(&waiting, 0, __ATOMIC_RELAXED);
  running = false; /* the parent's thread; nothing to join here */
}
