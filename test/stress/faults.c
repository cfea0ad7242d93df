/* Faults the runtime must survive (the script drives the cases):
 *
 * work N          N instrumented calls, prints the result (used under an
 *                 unwritable log path and RLIMIT_FSIZE by the script).
 * threads MODE T  T threads calling instrumented code in MODE with the
 *                 config from XRAY_STRESS_CONFIG (FDR with too few buffers).
 * hold MODE T     T threads make one call each (6 events) and wait, holding
 *                 whatever buffer they took, while MODE is finalized and
 *                 flushed: with fewer buffers than threads, the drops are
 *                 exact (the script checks the counts).
 * empty MODE      init, finalize, flush with no event at all.
 * remove          a user handler removed and re-installed while two threads
 *                 are inside it; after the last removal and the threads'
 *                 end, no further event may arrive.
 * finalize MODE   finalize and flush while two threads still run
 *                 instrumented code; they keep running correctly after. */
#include "stress.h"

#include <stdatomic.h>

WORK int leaf(int x) { return x + 1; }
WORK int mid(int x) { return leaf(x) + leaf(x + 1); }
NOINST static int mid_ref(int x) { return 2 * x + 3; }

static atomic_bool stop;
static atomic_long events, inside;
static pthread_barrier_t held, flushed;

NOINST static void *worker(void *arg) {
  const long limit = (long)(intptr_t)arg;
  long n = 0;
  while (limit ? n < limit : !atomic_load_explicit(&stop, memory_order_relaxed)) {
    int x = (int)(n & 4095);
    CHECK(mid(x) == mid_ref(x), "mid(%d) wrong", x);
    n++;
  }
  return (void *)n;
}

/* One call, then wait (for "hold") while the log is flushed. */
NOINST static void *holder(void *arg) {
  (void)arg;
  CHECK(mid(7) == mid_ref(7), "mid(7) wrong");
  pthread_barrier_wait(&held);
  pthread_barrier_wait(&flushed);
  return NULL;
}

NOINST static void slow_handler(int32_t id, XRayEntryType t) {
  (void)id;
  (void)t;
  atomic_fetch_add(&inside, 1);
  volatile int spin = 0; /* stay inside a while */
  for (int i = 0; i < 200; i++)
    spin = spin + i;
  atomic_fetch_add(&events, 1);
  atomic_fetch_sub(&inside, 1);
}

NOINST static const char *config(const char *mode) {
  const char *c = getenv("XRAY_STRESS_CONFIG");
  return c ? c : stress_default_config(mode);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2, "usage: %s CASE [ARGS]", argv[0]);
  const char *what = argv[1];
  if (strcmp(what, "work") == 0) {
    long n = argc > 2 ? atol(argv[2]) : 1000, s = 0;
    for (long i = 0; i < n; i++)
      s += mid((int)(i & 4095));
    printf("sum=%ld\n", s);
    return 0;
  }
  if (strcmp(what, "threads") == 0) {
    const char *mode = argv[2];
    const int nt = atoi(argv[3]);
    stress_start_mode(mode, config(mode));
    CHECK(__xray_patch() == SUCCESS, "patch");
    pthread_t t[64];
    CHECK(nt > 0 && nt <= 64, "threads");
    for (int i = 0; i < nt; i++)
      pthread_create(&t[i], NULL, worker, (void *)(intptr_t)20000);
    long total = 0;
    for (int i = 0; i < nt; i++) {
      void *r;
      pthread_join(t[i], &r);
      total += (long)(intptr_t)r;
    }
    CHECK(total == 20000L * nt, "calls %ld", total);
    CHECK(__xray_unpatch() == SUCCESS, "unpatch");
    stress_stop_mode(mode);
    printf("threads: ok\n");
    return 0;
  }
  if (strcmp(what, "hold") == 0) {
    const char *mode = argv[2];
    const int nt = atoi(argv[3]);
    CHECK(nt > 0 && nt <= 64, "threads");
    pthread_barrier_init(&held, NULL, (unsigned)nt + 1);
    pthread_barrier_init(&flushed, NULL, (unsigned)nt + 1);
    stress_start_mode(mode, config(mode));
    CHECK(__xray_patch() == SUCCESS, "patch");
    pthread_t t[64];
    for (int i = 0; i < nt; i++)
      pthread_create(&t[i], NULL, holder, NULL);
    pthread_barrier_wait(&held); /* every thread made its call */
    CHECK(__xray_unpatch() == SUCCESS, "unpatch");
    stress_stop_mode(mode);
    pthread_barrier_wait(&flushed);
    for (int i = 0; i < nt; i++)
      pthread_join(t[i], NULL);
    printf("hold: ok\n");
    return 0;
  }
  if (strcmp(what, "empty") == 0) {
    const char *mode = argv[2];
    stress_start_mode(mode, config(mode));
    stress_stop_mode(mode);
    printf("empty: ok\n");
    return 0;
  }
  if (strcmp(what, "remove") == 0) {
    CHECK(__xray_set_handler(slow_handler) == 1, "set_handler");
    CHECK(__xray_patch() == SUCCESS, "patch");
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, NULL);
    long caught_inside = 0;
    for (int i = 0; i < 20000; i++) {
      CHECK(__xray_remove_handler() == 1, "remove");
      caught_inside += atomic_load(&inside) > 0;
      CHECK(__xray_set_handler(slow_handler) == 1, "set");
    }
    CHECK(__xray_remove_handler() == 1, "remove");
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
    CHECK(atomic_load(&inside) == 0, "a thread is still inside the handler");
    const long after = atomic_load(&events);
    for (int i = 0; i < 1000; i++)
      USE(mid(i));
    CHECK(atomic_load(&events) == after, "events after removal: %ld",
          atomic_load(&events) - after);
    printf("remove: ok (%ld removals with a thread inside)\n", caught_inside);
    return 0;
  }
  if (strcmp(what, "finalize") == 0) {
    const char *mode = argv[2];
    stress_start_mode(mode, config(mode));
    CHECK(__xray_patch() == SUCCESS, "patch");
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 20000; i++)
      CHECK(mid(i) == mid_ref(i), "main: wrong");
    stress_stop_mode(mode); /* threads still running */
    for (int i = 0; i < 20000; i++)
      CHECK(mid(i) == mid_ref(i), "main after flush: wrong");
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
    printf("finalize: ok\n");
    return 0;
  }
  CHECK(false, "unknown case %s", what);
}
