/* 4 threads run patched functions; the handler counts every event per
 * function and kind with atomics: the totals must be exact. */
#include "recorder.h"

#include <pthread.h>

static unsigned long counts[8][4];
NOXRAY static void count_event(int32_t id, XRayEntryType type) {
  if (id > 0 && id < 8 && (unsigned)type < 4)
    __atomic_fetch_add(&counts[id][type], 1, __ATOMIC_RELAXED);
}

volatile int sink;
TRACED int inner(int x) { sink = x; return x + 1; }
TRACED int outer(int x) { int r = inner(x); sink = r; return r + 1; }
TRACED int tail_to_inner(int x) { sink = x; return inner(x); }

static const struct named fns[] = {{"inner", (void *)inner},
                                   {"outer", (void *)outer},
                                   {"tail_to_inner", (void *)tail_to_inner}};

NOXRAY static void *worker(void *arg) {
  int n = (int)(intptr_t)arg;
  for (int i = 0; i < n; i++) {
    outer(i);
    if (i % 2 == 0)
      tail_to_inner(i);
  }
  return NULL;
}

NOXRAY int main(void) {
  CHECK(__xray_set_handler(count_event) == 1);
  CHECK(__xray_patch() == SUCCESS);
  pthread_t th[4];
  for (int t = 0; t < 4; t++)
    CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)10000) == 0);
  for (int t = 0; t < 4; t++)
    CHECK(pthread_join(th[t], NULL) == 0);
  CHECK(__xray_unpatch() == SUCCESS);
  worker((void *)(intptr_t)100); /* unpatched: not counted */
  for (int id = 1; id <= 3; id++)
    printf("%s enter %lu exit %lu tail %lu\n", name_of(fns, 3, id), counts[id][ENTRY],
           counts[id][EXIT], counts[id][TAIL]);
  return 0;
}
