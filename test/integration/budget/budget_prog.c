/* The program of the budget's tests (docs/modes.md, "Keeping the cost
 * bounded"): functions whose costs are known by construction, and runs
 * that wait for the budget's evaluations (__xray_budget_status) instead of
 * for time: each wait is bounded (60 s) only so that a broken budget fails
 * instead of hanging.
 *
 *   hot_tiny, phase2_hot  tiny and called in a tight loop: each costs far
 *                         more than any budget (its events outweigh its
 *                         work), so the budget culls them;
 *   cold_slow             a millisecond of work a call, called a thousand
 *                         times less often: costs next to nothing, never
 *                         culled;
 *   exact_fn              tiny, chosen by exact name (xray_patch=
 *                         'exact_fn;*'), and by_id (__xray_patch_function):
 *                         never culled, however hot;
 *   kept_fn               tiny, matching xray_budget_keep: never culled.
 *
 * Runs (argv[1]); each prints "name calls" lines of the functions whose
 * calls the tests count exactly:
 *   phases   hot_tiny until the budget culls a function, then phase2_hot
 *            too (a new phase) until it culls another;
 *   unmet    hot_tiny, exact_fn, by_id and kept_fn all hot: the budget
 *            cannot be met (the protected ones alone cost more);
 *   onoff    culls hot_tiny; once its exits are culled too, calls it
 *            more times than before; then __xray_budget_set(0): everything
 *            back, and hot_tiny called more times than before again;
 *   off      no budget: prints the status and the budget threads;
 *   threads  4 threads run spin_tiny at full speed while it is culled, an
 *            FDR snapshot taken at each evaluation meanwhile;
 *   own      a handler of the program's own instead of a mode: the budget
 *            measures nothing and culls nothing (every call reaches it);
 *   fork     culls hot_tiny, then forks: the child's budget runs (its own
 *            thread), keeps hot_tiny culled and culls phase2_hot too;
 *   serve    hot_tiny until the file "stop" exists (xrayctl drives it). */
#include <xray/xray_budget.h>
#include <xray/xray_fdr.h>
#include <xray/xray_interface.h>
#include <xray/xray_names.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACED __attribute__((xray_always_instrument, noinline))
#define UNTRACED __attribute__((xray_never_instrument))

static volatile unsigned sink;

TRACED void hot_tiny(unsigned x) { sink += x; }
TRACED void phase2_hot(unsigned x) { sink ^= x * 3u; }
TRACED void exact_fn(unsigned x) { sink += x ^ 5u; }
TRACED void by_id(unsigned x) { sink += x ^ 9u; }
TRACED void kept_fn(unsigned x) { sink -= x; }
TRACED void spin_tiny(unsigned x) { sink += x * 7u; }
TRACED void tick(void) { sink++; }
TRACED void cold_slow(void) {
  for (unsigned i = 0; i < 300000; i++)
    sink += i;
}

static unsigned long hot_calls, cold_calls, exact_calls, id_calls, kept_calls;

UNTRACED static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

UNTRACED static struct XRayBudgetStatus status(void) {
  struct XRayBudgetStatus st;
  if (__xray_budget_status(&st) != XRAY_BUDGET_OK) {
    fprintf(stderr, "__xray_budget_status failed\n");
    exit(2);
  }
  return st;
}

UNTRACED static void give_up(const char *what) {
  struct XRayBudgetStatus st = status();
  fprintf(stderr, "gave up after 60 s waiting for %s: %llu evaluations, %llu culled\n",
          what, (unsigned long long)st.evaluations, (unsigned long long)st.culled);
  exit(3);
}

/* Calls the hot functions of `hot` (bits: 1 hot_tiny, 2 phase2_hot, 4 the
 * protected ones) until the budget has culled `culled` functions at once. */
TRACED static void run_until_culled(unsigned hot, unsigned long culled) {
  double start = seconds();
  for (unsigned i = 1;; i++) {
    if (hot & 1)
      hot_tiny(i), hot_calls++;
    if (hot & 2)
      phase2_hot(i);
    if (hot & 4) {
      exact_fn(i), exact_calls++;
      by_id(i), id_calls++;
      kept_fn(i), kept_calls++;
    } else if (i % 100000 == 0) {
      exact_fn(i), exact_calls++;
    }
    if (i % 100000 == 0) {
      cold_slow(), cold_calls++;
      if (status().culled >= culled)
        return;
      if (seconds() - start > 60)
        give_up("culls");
    }
  }
}

/* The xray-budget threads of this process. */
UNTRACED static int budget_threads(void) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL) {
    char path[300], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    if (fgets(comm, sizeof comm, f) && strcmp(comm, "xray-budget\n") == 0)
      n++;
    fclose(f);
  }
  if (d)
    closedir(d);
  return n;
}

UNTRACED static void print_status(const char *when) {
  struct XRayBudgetStatus st = status();
  printf("%s: percent %g running %d threads %d culled %llu evaluations %s\n", when,
         st.percent, st.running, budget_threads(), (unsigned long long)st.culled,
         st.evaluations ? "some" : "none");
}

/* ---- threads ---------------------------------------------------------- */

static volatile int stop;

TRACED static void *worker(void *arg) {
  (void)arg;
  for (unsigned i = 1; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
    spin_tiny(i);
    if ((i & 0xffff) == 0)
      tick(); /* a record after the cull: a half call would show before it */
  }
  return NULL;
}

UNTRACED static void run_threads(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  double start = seconds();
  uint64_t seen = 0, cull_at = 0;
  int snapshots = 0;
  for (;;) {
    struct XRayBudgetStatus st = status();
    if (st.culled >= 1 && cull_at == 0)
      cull_at = st.evaluations;
    /* two more evaluations: the exits are culled at the one after */
    if (cull_at != 0 && st.evaluations >= cull_at + 2)
      break;
    if (st.evaluations != seen && snapshots < 40) {
      seen = st.evaluations;
      char path[4096];
      if (__xray_fdr_snapshot(path, sizeof path) == XRAY_SNAPSHOT_OK)
        snapshots++;
    }
    if (seconds() - start > 60)
      give_up("the cull of spin_tiny");
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  printf("snapshots %s\n", snapshots > 0 ? "some" : "none");
}

/* ---- own ---------------------------------------------------------------- */

static int32_t hot_id;
static unsigned long own_entries;

UNTRACED static void own_handler(int32_t id, XRayEntryType type) {
  if (id == hot_id && type == ENTRY)
    own_entries++;
}

UNTRACED static int run_own(void) {
  if (__xray_function_ids("hot_tiny", &hot_id, 1) != 1 || __xray_set_handler(own_handler) != 1 ||
      __xray_patch() != SUCCESS || __xray_budget_set(2) != XRAY_BUDGET_OK)
    return 2;
  double start = seconds();
  for (unsigned i = 1; status().evaluations < 3; i++) {
    hot_tiny(i), hot_calls++;
    if (seconds() - start > 60)
      give_up("evaluations");
  }
  print_status("own");
  printf("every call seen: %s\n", own_entries == hot_calls ? "yes" : "no");
  return 0;
}

int main(int argc, char **argv) {
  const char *run = argc > 1 ? argv[1] : "";
  if (strcmp(run, "phases") == 0) {
    run_until_culled(1, 1);
    run_until_culled(1 | 2, 2);
    printf("cold_slow %lu\nexact_fn %lu\n", cold_calls, exact_calls);
  } else if (strcmp(run, "unmet") == 0) {
    int32_t ids[1];
    if (__xray_function_ids("by_id", ids, 1) != 1 || __xray_patch_function(ids[0]) != SUCCESS) {
      fprintf(stderr, "by_id: no id, or not patched\n");
      return 2;
    }
    run_until_culled(1 | 4, 1);
    /* until the status says unmet, then a few evaluations more: the
     * protected ones stay, whatever they cost */
    uint64_t until = 0;
    double start = seconds();
    for (unsigned i = 1;; i++) {
      hot_tiny(i);
      exact_fn(i), exact_calls++;
      by_id(i), id_calls++;
      kept_fn(i), kept_calls++;
      struct XRayBudgetStatus st = status();
      if (until == 0 && st.unmet)
        until = st.evaluations + 3;
      if (until != 0 && st.evaluations >= until)
        break;
      if (seconds() - start > 60)
        give_up("unmet and evaluations");
    }
    printf("unmet seen\nexact_fn %lu\nby_id %lu\nkept_fn %lu\n", exact_calls, id_calls,
           kept_calls);
  } else if (strcmp(run, "onoff") == 0) {
    run_until_culled(1, 1);
    /* two evaluations later its exits are unpatched too: more calls than
     * were made so far leave fewer exits without entries in the profile */
    uint64_t until = status().evaluations + 2;
    double start = seconds();
    for (unsigned i = 1; status().evaluations < until; i++) {
      hot_tiny(i), hot_calls++;
      if (seconds() - start > 60)
        give_up("evaluations");
    }
    unsigned long quiet = hot_calls + 1000;
    for (unsigned long i = 0; i < quiet; i++)
      hot_tiny((unsigned)i);
    hot_calls += quiet;
    printf("quiet %lu\n", quiet);
    print_status("on");
    if (__xray_budget_set(0) != XRAY_BUDGET_OK)
      return 2;
    /* joined when the call returns; its task may linger in /proc/self/task
     * a moment after (the kernel clears the tid the join waits for before it
     * reaps the task; under qemu-user, longer): wait for it to go */
    double joined = seconds();
    while (budget_threads() != 0 && seconds() - joined < 10)
      usleep(1000);
    print_status("off");
    /* more calls than before the cull: a profile holding at least this
     * many saw hot_tiny patched again */
    unsigned long after = hot_calls + 1000;
    for (unsigned long i = 0; i < after; i++)
      hot_tiny((unsigned)i);
    printf("after %lu\n", after);
  } else if (strcmp(run, "off") == 0) {
    for (unsigned i = 1; i <= 1000; i++)
      hot_tiny(i);
    print_status("off");
  } else if (strcmp(run, "threads") == 0) {
    run_threads();
  } else if (strcmp(run, "own") == 0) {
    return run_own();
  } else if (strcmp(run, "fork") == 0) {
    run_until_culled(1, 1);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      double start = seconds();
      while (budget_threads() != 1) /* it names itself as it starts */
        if (seconds() - start > 60)
          give_up("the child's budget thread");
      print_status("child");
      run_until_culled(1 | 2, 2);
      print_status("child culled");
      exit(0);
    }
    int st = -1;
    if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "the child failed (status %d)\n", st);
      return 2;
    }
    print_status("parent");
  } else if (strcmp(run, "serve") == 0) {
    for (unsigned i = 1; access("stop", F_OK) != 0; i++)
      for (unsigned k = 0; k < 100000; k++)
        hot_tiny(i + k);
  } else {
    fprintf(stderr, "usage: %s phases|unmet|onoff|off|threads|serve\n", argv[0]);
    return 2;
  }
  return 0;
}
