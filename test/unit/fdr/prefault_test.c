/* fdr_prefault.c: the helper thread faults fresh buffers in ahead of the
 * writers, no further than its lead beyond the last buffer taken, so a
 * buffer handed out is resident before anything is written to it; it
 * starts only for buffers over XR_FDR_PREFAULT_MIN, stops (joined) on
 * request, and a fork child has none to wait for. Residency is read with
 * mincore(). No timing: where the helper must have done something, the
 * test waits until it has (a helper that never does it hangs the test,
 * which ctest's timeout ends). */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fdr/buffer_queue.h"
#include "fdr/fdr_prefault.h"
#include "resident_pages.h"

enum { MIB = 1 << 20, COUNT = 12 };

static bool populate_supported(void) {
  void *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(probe != MAP_FAILED);
  bool ok = madvise(probe, 4096, XR_MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  return ok;
}

static bool wholly_resident(const struct xr_fdr_queue *q, size_t i) {
  const uint8_t *d = q->buffers[i].data;
  return resident_pages(d, d + q->buffer_size) ==
         pages_spanned(d, d + q->buffer_size);
}

/* Until the helper has populated buffer i (see the head comment). */
static void wait_populated(const struct xr_fdr_queue *q, size_t i) {
  while (__atomic_load_n(&q->buffers[i].populated, __ATOMIC_RELAXED) <
         q->buffer_size)
    sched_yield();
}

/* Until the helper waits for a wake (in the futex call under sem_wait) or
 * has ended: what it has populated then is all it populates while nothing
 * more is taken. Read from /proc: the thread named xray-prefault, and the
 * system call it is blocked in. */
static void wait_resting(void) {
  for (;;) {
    bool found = false;
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      char path[300], text[64] = {0};
      snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
      FILE *f = fopen(path, "r");
      if (!f)
        continue;
      bool ours = fgets(text, sizeof text, f) && !strcmp(text, "xray-prefault\n");
      fclose(f);
      if (!ours)
        continue;
      found = true;
      snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
      f = fopen(path, "r");
      long nr = -1;
      if (f) {
        if (fscanf(f, "%ld", &nr) != 1)
          nr = -1;
        fclose(f);
      }
      if (nr == SYS_futex) {
        closedir(d);
        return;
      }
    }
    closedir(d);
    if (!found)
      return; /* ended */
    sched_yield();
  }
}

static void small_queues_get_no_helper(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, MIB, 4), 0); /* 4 MiB: not over */
  assert_false(xr_fdr_prefault_start(&q, 2 * MIB));
  assert_int_equal(q.buffers[0].populated, 0);
  xr_fdr_queue_destroy(&q);
  assert_int_equal(xr_fdr_queue_init(&q, MIB, COUNT), 0);
  assert_false(xr_fdr_prefault_start(&q, 0)); /* populate_ahead_mb=0 */
  xr_fdr_prefault_stop(); /* none runs: returns */
  assert_int_equal(resident_pages(q.buffers[0].data, q.buffers[0].data + MIB), 0);
  xr_fdr_queue_destroy(&q);
}

static void buffers_are_resident_before_they_are_taken(void **s) {
  (void)s;
  if (!populate_supported())
    skip(); /* a kernel before 5.14: pages fault in as they are written */
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, MIB, COUNT), 0);
  assert_true(xr_fdr_prefault_start(&q, 2 * MIB)); /* a lead of 2 buffers */
  wait_populated(&q, 0);
  wait_populated(&q, 1);
  wait_resting();
  assert_true(wholly_resident(&q, 0));
  assert_true(wholly_resident(&q, 1));
  /* Nothing taken yet: the helper waits. Buffers well beyond the lead (a
   * 2 MiB huge page of the last one populated may reach two buffers
   * further) stay unbacked. */
  for (size_t i = 6; i < COUNT; i++)
    assert_int_equal(resident_pages(q.buffers[i].data,
                                    q.buffers[i].data + MIB), 0);
  /* What an event gets is resident before anything writes to it. */
  struct xr_fdr_buffer *b = xr_fdr_queue_acquire(&q);
  assert_ptr_equal(b, &q.buffers[0]);
  assert_true(wholly_resident(&q, 0));
  xr_fdr_prefault_wake();
  wait_populated(&q, 2); /* the lead moved: one more */
  assert_true(wholly_resident(&q, 2));
  struct xr_fdr_buffer *c = xr_fdr_queue_acquire(&q);
  assert_ptr_equal(c, &q.buffers[1]);
  assert_true(wholly_resident(&q, 1));
  xr_fdr_prefault_wake();
  wait_populated(&q, 3);
  wait_resting();
  for (size_t i = 7; i < COUNT; i++)
    assert_int_equal(resident_pages(q.buffers[i].data,
                                    q.buffers[i].data + MIB), 0);
  xr_fdr_prefault_stop(); /* joined: nothing touches the queue after this */
  xr_fdr_queue_destroy(&q);
}

/* The helper runs to the end and leaves; taking buffers while it works
 * (here from two threads, many wakes) loses none and blocks none. */
struct taker {
  struct xr_fdr_queue *q;
  int taken;
};
static void *take_all(void *arg) {
  struct taker *t = arg;
  struct xr_fdr_buffer *b;
  while ((b = xr_fdr_queue_acquire(t->q)) != NULL) {
    b->data[0] = 1; /* a writer's first record */
    t->taken++;
    xr_fdr_prefault_wake();
  }
  return NULL;
}

static void helper_and_takers_together(void **s) {
  (void)s;
  enum { MANY = 64 };
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, 256 * 1024, MANY), 0);
  assert_true(xr_fdr_prefault_start(&q, MIB));
  struct taker t[2] = {{&q, 0}, {&q, 0}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&th[i], NULL, take_all, &t[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(t[0].taken + t[1].taken, MANY);
  assert_int_equal(__atomic_load_n(&q.fresh_taken, __ATOMIC_RELAXED), MANY);
  xr_fdr_prefault_stop();
  for (size_t i = 0; i < MANY; i++)
    assert_int_equal(q.buffers[i].data[0], 1);
  xr_fdr_queue_destroy(&q);
}

/* A fork child has no helper: stopping there returns at once (joining the
 * parent's thread would wait for ever), and the parent's goes on. */
static void fork_child_has_no_helper(void **s) {
  (void)s;
  struct xr_fdr_queue q;
  assert_int_equal(xr_fdr_queue_init(&q, MIB, COUNT), 0);
  assert_true(xr_fdr_prefault_start(&q, 2 * MIB));
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    xr_fdr_prefault_fork_child();
    xr_fdr_prefault_stop();
    xr_fdr_prefault_wake(); /* nobody waits: no post */
    _exit(0);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  if (populate_supported())
    wait_populated(&q, 1);
  xr_fdr_prefault_stop();
  xr_fdr_queue_destroy(&q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(small_queues_get_no_helper),
      cmocka_unit_test(buffers_are_resident_before_they_are_taken),
      cmocka_unit_test(helper_and_takers_together),
      cmocka_unit_test(fork_child_has_no_helper),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
