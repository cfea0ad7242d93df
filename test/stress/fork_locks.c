/* fork while other threads hold the runtime's locks.
 *
 * fork_locks SO N: one thread loops __xray_patch / __xray_unpatch (the
 * object registry's lock is held while every object's sleds are written),
 * another loops dlopen(SO) / a name lookup in it (its names are read afresh
 * at each load, outside that lock) / dlclose, while the main thread forks N
 * children. Each child, alone in its process, must: patch everything
 * (SUCCESS), see exactly one entry and one exit of work() through a user
 * handler, find work() by name and name its id back, and exit 0. The parent
 * waits for each child at most 60 s after the last fork (polling
 * waitpid(WNOHANG)): a child still running then hangs on state the parent's
 * threads held at fork time; it is killed and counted, never waited for.
 * Prints "children N, ok K, hung H, failed F" and exits 0 only if K == N;
 * a failed child's exit code has a bit per failed step: 1 patch, 2 id by
 * name, 4 name by id, 8 set handler, 16 result, 32 event counts. */
#include "stress.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <xray/xray_names.h>

WORK int work(int x) { return x * 3 + 2; }

static atomic_bool stop;
static const char *so_path;
static int32_t work_id;
static atomic_long work_entries, work_exits;

NOINST static void on_event(int32_t id, XRayEntryType t) {
  if (id != work_id)
    return;
  if (t == ENTRY)
    atomic_fetch_add_explicit(&work_entries, 1, memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&work_exits, 1, memory_order_relaxed);
}

NOINST static void *patcher(void *arg) {
  (void)arg;
  long rounds = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    CHECK(__xray_patch() == SUCCESS, "patcher: patch");
    CHECK(__xray_unpatch() == SUCCESS, "patcher: unpatch");
    rounds++;
  }
  return (void *)rounds;
}

NOINST static void *loader(void *arg) {
  (void)arg;
  long rounds = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    void *h = dlopen(so_path, RTLD_NOW);
    CHECK(h != NULL, "dlopen: %s", dlerror());
    int32_t ids[2];
    CHECK(__xray_function_ids("many_7", ids, 2) == 1, "loader: many_7 not found once");
    dlclose(h);
    rounds++;
  }
  return (void *)rounds;
}

/* The exit code has a bit per failed step (every step runs, so one
 * failure does not hide the next); a hang is seen by the parent. */
NOINST static int child(void) {
  int failed = 0;
  if (__xray_patch() != SUCCESS)
    failed |= 1;
  int32_t ids[2];
  if (__xray_function_ids("work", ids, 2) != 1 || ids[0] != work_id)
    failed |= 2;
  char name[32];
  if (__xray_function_name(work_id, name, sizeof name) != 4 || strcmp(name, "work") != 0)
    failed |= 4;
  atomic_store(&work_entries, 0);
  atomic_store(&work_exits, 0);
  if (__xray_set_handler(on_event) != 1)
    failed |= 8;
  if (work(5) != 17)
    failed |= 16;
  __xray_remove_handler();
  if (atomic_load(&work_entries) != 1 || atomic_load(&work_exits) != 1)
    failed |= 32;
  return failed;
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s SO N", argv[0]);
  so_path = argv[1];
  const int n = atoi(argv[2]);
  CHECK(n > 0 && n <= 1000, "N out of range");
  work_id = stress_id_of((void *)work);
  CHECK(work_id > 0, "work has no id");

  pthread_t t[2];
  pthread_create(&t[0], NULL, patcher, NULL);
  pthread_create(&t[1], NULL, loader, NULL);
  pid_t *pids = calloc((size_t)n, sizeof *pids);
  int *done = calloc((size_t)n, sizeof *done), ok = 0, hung = 0, failed = 0;
  CHECK(pids && done, "calloc");
  fflush(stdout);
  for (int k = 0; k < n; k++) {
    pids[k] = fork();
    CHECK(pids[k] >= 0, "fork");
    if (pids[k] == 0)
      _exit(child());
  }
  atomic_store(&stop, true);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);

  /* Bounded wait: 60 s after the last fork for all of them together (a
   * hang never ends; 200 children under qemu-user take about 5 s). */
  int left = n;
  for (uint64_t end = stress_now_ms() + 60000; left > 0 && stress_now_ms() < end;) {
    for (int k = 0; k < n; k++) {
      int st;
      if (done[k] || waitpid(pids[k], &st, WNOHANG) != pids[k])
        continue;
      done[k] = 1;
      left--;
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        ok++;
      } else {
        failed++;
        fprintf(stderr, "child %d: %s %d\n", k, WIFEXITED(st) ? "exit" : "signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      }
    }
    if (left > 0)
      usleep(10000); /* polling a bound, not synchronising */
  }
  for (int k = 0; k < n; k++)
    if (!done[k]) {
      hung++;
      kill(pids[k], SIGKILL);
      waitpid(pids[k], NULL, 0);
    }
  free(pids);
  free(done);
  printf("children %d, ok %d, hung %d, failed %d\n", n, ok, hung, failed);
  if (hung)
    fprintf(stderr, "FAIL: %d of %d children still ran 60 s after the last fork "
            "(a lock the parent's threads held at fork time)\n", hung, n);
  return ok == n ? 0 : 1;
}
