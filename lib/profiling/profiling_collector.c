/* Thread registry, posting and adoption of call tries. See
 * profiling_collector.h for the protocol. */
#include "profiling/profiling_collector.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/thread/lock.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"

#include <sys/mman.h>
#include <unistd.h>

XR_TLS struct xr_prof_thread xr_prof_tls = {.gen_tag = XR_PROF_NO_GEN,
                                            .failed_gen = XR_PROF_NO_GEN};
uint32_t xr_prof_active_gen;
static struct xr_trie_config trie_config; /* fields atomic: see read_config */
uint64_t xr_prof_lost_events;
uint64_t xr_prof_nested_drops;

static xr_lock collector_lock;
static struct xr_thread_list registry; /* live threads that made a trie */
static struct xr_trie *posted;          /* newest first */
static struct xr_trie **collected;      /* result of xr_prof_collect */
static size_t collected_bytes;

/* With the guard set (core/thread/thread_list.h), as every registry's lock; the
 * callers have set it already, but the rule then holds by construction. */
static uint8_t lock(void) { return xr_thread_list_lock(&collector_lock); }
static void unlock(uint8_t guard) {
  xr_thread_list_unlock(&collector_lock, guard);
}

/* Caller holds the lock. */
static void post_locked(struct xr_trie *t) {
  xr_trie_close_all(t, xr_now());
  t->next_posted = posted;
  posted = t;
}

/* Takes the thread's trie away from it; exactly one of the owner and the
 * collector gets it (atomic exchange). */
static struct xr_trie *take(struct xr_prof_thread *p) {
  return __atomic_exchange_n(&p->trie, NULL, __ATOMIC_ACQ_REL);
}

static void register_locked(struct xr_prof_thread *p) {
  xr_thread_list_add(&registry, &p->link);
}

static void unregister_locked(struct xr_prof_thread *p) {
  xr_thread_list_remove(&registry, &p->link);
}

static void on_thread_exit(void) {
  struct xr_prof_thread *p = &xr_prof_tls;
  uint8_t guard = lock();
  struct xr_trie *t = take(p);
  if (t != NULL)
    post_locked(t);
  unregister_locked(p); /* its TLS is about to go away */
  p->gen_tag = XR_PROF_NO_GEN;
  unlock(guard);
}

/* In a fork child only the forking thread exists: forget the others (their
 * tries belong to the parent's profile) and the posted tries, which the
 * parent writes. The forking thread keeps its trie and open calls. */
static void on_fork_child(void) {
  xr_lock_after_fork(&collector_lock);
  struct xr_prof_thread *self = &xr_prof_tls;
  xr_thread_list_after_fork(&registry, &self->link);
  posted = NULL; /* copies of the parent's memory; left mapped */
}

static xr_trie_grow_fn lean_grow; /* set once, before the first session */

void xr_prof_collector_setup(xr_trie_grow_fn grow) {
  static int done;
  if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  lean_grow = grow;
  xr_quiesce_setup();
  if (xr_thread_on_exit(on_thread_exit) != 0 ||
      xr_thread_on_fork_child(on_fork_child) != 0)
    xr_report(XR_ERROR, "xray-profiling: no thread hook left; an exiting "
              "thread or a fork child may lose or repeat its profile");
}

/* Ends the session and fences every thread: core/thread/quiesce.h's protocol,
 * xr_in_handler being the guard and xr_prof_active_gen the on/off word.
 * After it, a thread's guard read clear means its trie is not in use and
 * will not be: a later event goes to the slow path, which touches the trie
 * only through the atomic take (exactly one of the thread and the collector
 * gets it). */
void xr_prof_end_session(void) {
  __atomic_store_n(&xr_prof_active_gen, 0, __ATOMIC_SEQ_CST);
  xr_quiesce_fence();
}

/* Every field is read and written with relaxed atomics and checked after
 * as a sequence lock checks its count, xr_prof_active_gen being the count:
 * init writes the fields only after the session ended (the generation went
 * to 0 before the previous flush's lifecycle store, which init's
 * begin_init follows), behind a release fence. A reader that took any
 * field from the new init synchronises with that fence through its acquire
 * fence, so its second load of the generation sees 0 or the new one, never
 * gen (generations are not reused). Equal generations thus mean a copy of
 * gen's own parameters. */
void xr_prof_set_trie_config(const struct xr_trie_config *c) {
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&trie_config.chunk_bytes, c->chunk_bytes, __ATOMIC_RELAXED);
  __atomic_store_n(&trie_config.stack_bytes, c->stack_bytes, __ATOMIC_RELAXED);
  __atomic_store_n(&trie_config.max_depth, c->max_depth, __ATOMIC_RELAXED);
  __atomic_store_n(&trie_config.global_max_bytes, c->global_max_bytes,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&trie_config.global_used, c->global_used, __ATOMIC_RELAXED);
}

static bool read_config(struct xr_trie_config *out, uint32_t gen) {
  out->chunk_bytes = __atomic_load_n(&trie_config.chunk_bytes, __ATOMIC_RELAXED);
  out->stack_bytes = __atomic_load_n(&trie_config.stack_bytes, __ATOMIC_RELAXED);
  out->max_depth = __atomic_load_n(&trie_config.max_depth, __ATOMIC_RELAXED);
  out->global_max_bytes =
      __atomic_load_n(&trie_config.global_max_bytes, __ATOMIC_RELAXED);
  out->global_used = __atomic_load_n(&trie_config.global_used, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(&xr_prof_active_gen, __ATOMIC_RELAXED) == gen;
}

/* Returns false when the session gen ended meanwhile (nothing made). */
static bool make_trie(struct xr_prof_thread *p, uint32_t gen) {
  struct xr_trie_config cfg;
  if (!read_config(&cfg, gen))
    return false;
  struct xr_trie *t = xr_trie_create(&cfg);
  if (t == NULL) {
    p->failed_gen = gen;
    return true;
  }
  t->grow = lean_grow;
  t->gen = gen;
  t->tid = xr_tid();
  p->in_handler = &xr_in_handler;
  uint8_t guard = lock();
  if (!p->link.registered)
    register_locked(p);
  unlock(guard);
  xr_thread_arm();
  p->trie_gen = gen;
  __atomic_store_n(&p->trie, t, __ATOMIC_RELEASE);
  return true;
}

void xr_prof_thread_refresh(void *arg) {
  struct xr_prof_thread *p = arg;
  uint32_t gen = __atomic_load_n(&xr_prof_active_gen, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&p->trie, __ATOMIC_ACQUIRE) != NULL &&
      (gen == 0 || p->trie_gen != gen)) {
    uint8_t guard = lock();
    struct xr_trie *t = take(p);
    if (t != NULL)
      post_locked(t);
    unlock(guard);
  }
  p->gen_tag = XR_PROF_NO_GEN;
  if (gen == 0)
    return;
  if (p->trie == NULL && p->failed_gen != gen && !make_trie(p, gen))
    return; /* gen ended while we looked: the event belongs to no session */
  if (p->trie != NULL && p->trie_gen == gen)
    p->gen_tag = gen;
  else
    __atomic_fetch_add(&xr_prof_lost_events, 1, __ATOMIC_RELAXED);
}

void xr_prof_collector_reset(void) {
  uint8_t guard = lock();
  struct xr_trie *t = posted;
  posted = NULL;
  struct xr_trie **c = collected;
  size_t cb = collected_bytes;
  collected = NULL;
  collected_bytes = 0;
  unlock(guard);
  while (t != NULL) {
    struct xr_trie *next = t->next_posted;
    xr_trie_destroy(t);
    t = next;
  }
  if (c != NULL)
    munmap(c, cb);
}

size_t xr_prof_collect(uint32_t gen, uint64_t timeout_ns, struct xr_trie ***out,
                       uint64_t *not_collected) {
  *out = NULL;
  *not_collected = 0;
  struct xr_prof_thread *self = &xr_prof_tls;
  uint8_t guard = lock();
  struct xr_trie *own = take(self);
  if (own != NULL)
    post_locked(own);
  self->gen_tag = XR_PROF_NO_GEN;
  /* Idle threads: guard clear after xr_prof_end_session, so not inside a
   * handler and never about to use the trie (see the argument there): their
   * next event sees the session ended and goes to the slow path, which
   * finds the trie taken. A thread busy in a handler is retried with the
   * lock released: it is usually on its way to post the trie itself (which
   * needs the lock), until the bound passes (then one last look). */
  uint64_t deadline = xr_quiesce_deadline(timeout_ns);
  unsigned steps = 0;
  for (bool waiting = true;;) {
    uint64_t busy = 0;
    for (struct xr_thread_link *l = registry.head; l != NULL; l = l->next) {
      struct xr_prof_thread *p = xr_thread_entry(l, struct xr_prof_thread, link);
      struct xr_trie *t = __atomic_load_n(&p->trie, __ATOMIC_ACQUIRE);
      if (p == self || t == NULL || p->trie_gen != gen)
        continue;
      if (__atomic_load_n(p->in_handler, __ATOMIC_ACQUIRE) != 0) {
        busy++;
        continue;
      }
      t = take(p);
      if (t != NULL)
        post_locked(t);
    }
    if (busy == 0 || !waiting) {
      *not_collected = busy;
      break;
    }
    unlock(guard);
    waiting = xr_quiesce_wait_step(&steps, deadline);
    guard = lock();
  }
  /* oldest first: the order threads finished in */
  size_t n = 0;
  for (struct xr_trie *t = posted; t != NULL; t = t->next_posted)
    n += t->gen == gen;
  size_t bytes = (n + 1) * sizeof(struct xr_trie *);
  struct xr_trie **arr = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (arr == MAP_FAILED) {
    unlock(guard);
    *not_collected += n;
    return 0;
  }
  size_t i = n;
  for (struct xr_trie *t = posted; t != NULL; t = t->next_posted)
    if (t->gen == gen)
      arr[--i] = t;
  if (collected != NULL)
    munmap(collected, collected_bytes);
  collected = arr;
  collected_bytes = bytes;
  unlock(guard);
  *out = arr;
  return n;
}
