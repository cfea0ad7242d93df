/* Per-thread facts: cached ids, the re-entrancy guard, thread-exit and
 * fork-child hooks.
 *
 * Hot path budget: xr_tid()/xr_pid() are one TLS (resp. global) load and a
 * predictable branch; xr_thread_arm() is one TLS load after its first call on
 * a thread.
 *
 * The first call of xr_thread_arm() on a thread may run in a signal handler
 * that interrupted malloc (a thread's first instrumented call can be there),
 * so it must not allocate or lock: it calls no pthread_once (the key is made
 * at start-up, before main, by xr_thread_setup) and one pthread_setspecific
 * on a key below 32, which glibc keeps in the thread's own descriptor: two
 * stores, no lock, no allocation (keys from 32 on live in blocks it callocs
 * at a thread's first use). The key is created from .preinit_array, before
 * any library constructor can take the first 32. */
#include "core/thread/thread.h"

#include "core/thread/fork_locks.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

XR_TLS int32_t xr_thread_tid_cache;
int32_t xr_process_pid_cache;
bool xr_process_forked;
XR_TLS uint8_t xr_in_handler;

/* Hooks are appended under XR_LOCK_HOOKS and published by the release store
 * of the count, so the lock-free readers below see complete entries. */
static void (*exit_hooks[XR_THREAD_HOOKS_MAX])(void);
static unsigned exit_hook_count;
static void (*fork_hooks[XR_THREAD_HOOKS_MAX])(void);
static unsigned fork_hook_count;

static pthread_key_t exit_key;
static bool exit_key_ok; /* set once by setup, before any event */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static XR_TLS uint8_t thread_armed;

/* glibc's PTHREAD_KEY_2NDLEVEL_SIZE: keys below it need no allocation. */
enum { XR_KEYS_IN_DESCRIPTOR = 32 };

int32_t xr_thread_tid_slow(void) {
  int32_t t = (int32_t)syscall(SYS_gettid);
  xr_thread_tid_cache = t;
  return t;
}

int32_t xr_process_pid_slow(void) {
  int32_t p = (int32_t)getpid();
  __atomic_store_n(&xr_process_pid_cache, p, __ATOMIC_RELAXED);
  return p;
}

static void run_exit_hooks(void *unused) {
  (void)unused;
  uint8_t was_in = xr_guard_enter(); /* the hooks' own events: dropped */
  unsigned n = __atomic_load_n(&exit_hook_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    exit_hooks[i]();
  xr_guard_leave(was_in);
}

/* Child of fork: only the forking thread exists; its caches and the pid
 * belong to the parent. Refresh them before any hook looks at them. */
static void on_fork_child(void) {
  __atomic_store_n(&xr_process_forked, true, __ATOMIC_RELAXED);
  xr_process_pid_slow();
  xr_thread_tid_slow();
  unsigned n = __atomic_load_n(&fork_hook_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    fork_hooks[i]();
}

static void setup(void) {
  bool ok = pthread_key_create(&exit_key, run_exit_hooks) == 0;
  __atomic_store_n(&exit_key_ok, ok, __ATOMIC_RELEASE);
  /* First: its child handler frees the locks before on_fork_child's hooks
   * run (child handlers run in registration order). */
  xr_fork_locks_setup();
  pthread_atfork(NULL, NULL, on_fork_child);
  /* From .preinit_array the key is among the first XR_KEYS_IN_DESCRIPTOR;
   * only a program whose own preinit functions took them all gets a later
   * one, whose first use on a thread allocates (docs/reliability.md). */
}

void xr_thread_setup(void) { pthread_once(&setup_once, setup); }

/* Fallback where .preinit_array does not run (musl): so the fork hook and
 * the key exist before any thread can fork or record. */
__attribute__((constructor)) static void thread_setup_at_start(void) {
  xr_thread_setup();
}

static int add_hook(void (**hooks)(void), unsigned *count,
                    void (*callback)(void)) {
  xr_thread_setup();
  int rc = -1;
  xr_fork_lock_take(XR_LOCK_HOOKS);
  unsigned n = *count;
  for (unsigned i = 0; i < n; i++)
    if (hooks[i] == callback)
      rc = 0; /* already registered: a mode re-initialised */
  if (rc != 0 && n < XR_THREAD_HOOKS_MAX) {
    hooks[n] = callback;
    __atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
    rc = 0;
  }
  xr_fork_lock_release(XR_LOCK_HOOKS);
  return rc;
}

int xr_thread_on_exit(void (*callback)(void)) {
  return add_hook(exit_hooks, &exit_hook_count, callback);
}

int xr_thread_on_fork_child(void (*callback)(void)) {
  return add_hook(fork_hooks, &fork_hook_count, callback);
}

int xr_thread_start_own(void *(*body)(void *), void *arg,
                        pthread_t *joinable) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits it */
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (joinable == NULL)
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t detached;
  int rc = pthread_create(joinable ? joinable : &detached, &attr, body, arg);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

void xr_thread_arm(void) {
  if (XR_LIKELY(thread_armed))
    return;
  thread_armed = 1;
  /* setup ran at start-up (preinit or constructor), before any event. */
  if (__atomic_load_n(&exit_key_ok, __ATOMIC_ACQUIRE))
    pthread_setspecific(exit_key, (void *)1);
}
