/* Patching and unpatching (all, one function, a range) 2000 times while two
 * threads run the code being rewritten. The threads' results must stay
 * exact, every call must succeed, and afterwards counts are exact again. */
#include "recorder.h"

#include <pthread.h>

static unsigned long enters, exits, tails;
NOXRAY static void count_event(int32_t id, XRayEntryType type) {
  (void)id;
  __atomic_fetch_add(type == EXIT ? &exits : type == TAIL ? &tails : &enters, 1,
                     __ATOMIC_RELAXED);
}

volatile int sink;
TRACED long f1(long x) { sink = (int)x; return x * 3; }
TRACED long f2(long x) { long r = f1(x) + 1; sink = (int)r; return r; }
TRACED long f3(long x) { sink = (int)x; return f2(x + 1); } /* tail call */

static volatile int stop;
NOXRAY static long expected_sum(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += 3 * (i + 1) + 1 + 3 * i + 1;
  return s;
}
/* Repeats cycles of `iterations` calls until stopped; checks every cycle. */
struct job { long iterations, cycles, bad_cycles; int running; };
NOXRAY static void *runner(void *arg) {
  struct job *j = arg;
  long want = expected_sum(j->iterations);
  __atomic_store_n(&j->running, 1, __ATOMIC_RELEASE);
  for (;;) {
    long s = 0;
    for (long i = 0; i < j->iterations; i++)
      s += f3(i) + f2(i);
    j->cycles++;
    j->bad_cycles += s != want;
    if (stop)
      return NULL;
  }
}

NOXRAY int main(void) {
  CHECK(__xray_set_handler(count_event) == 1);
  size_t max = __xray_max_function_id();
  CHECK(max == 3);
  struct job jobs[2] = {{500, 0, 0, 0}, {700, 0, 0, 0}};
  pthread_t th[2];
  for (int t = 0; t < 2; t++)
    CHECK(pthread_create(&th[t], NULL, runner, &jobs[t]) == 0);
  for (int t = 0; t < 2; t++) /* both threads are in the loop */
    while (!__atomic_load_n(&jobs[t].running, __ATOMIC_ACQUIRE))
      ;
  for (int round = 0; round < 2000; round++) {
    switch (round % 4) {
    case 0: CHECK(__xray_patch() == SUCCESS); break;
    case 1: CHECK(__xray_unpatch_function((int32_t)(round % 3) + 1) == SUCCESS); break;
    case 2: CHECK(__xray_patch_function_range(1, 2) == SUCCESS); break;
    case 3: CHECK(__xray_unpatch() == SUCCESS); break;
    }
  }
  stop = 1;
  for (int t = 0; t < 2; t++)
    CHECK(pthread_join(th[t], NULL) == 0);
  for (int t = 0; t < 2; t++)
    CHECK(jobs[t].cycles > 0 && jobs[t].bad_cycles == 0);

  /* Quiet again: exact counts. f3 calls f2 (tail) which calls f1; plus f2. */
  CHECK(__xray_patch() == SUCCESS);
  enters = exits = tails = 0;
  long s = 0;
  for (long i = 0; i < 1000; i++)
    s += f3(i) + f2(i);
  CHECK(s == expected_sum(1000));
  printf("enters %lu exits %lu tails %lu\n", enters, exits, tails);
  return 0;
}
