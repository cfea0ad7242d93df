/* patch_premain=true (read from the environment in .preinit_array, where
 * glibc's `environ` is still NULL in dynamic programs): functions are patched
 * before main. Also __xray_init called again from 4 threads at once. */
#include "recorder.h"

#include <pthread.h>

volatile int sink;
TRACED int f(int x) { sink = x; return x + 1; }

static const struct named fns[] = {{"f", (void *)f}};

NOXRAY static void *init_again(void *arg) {
  (void)arg;
  __xray_init();
  return (void *)__xray_max_function_id();
}

NOXRAY int main(void) {
  pthread_t th[4];
  for (int t = 0; t < 4; t++)
    CHECK(pthread_create(&th[t], NULL, init_again, NULL) == 0);
  for (int t = 0; t < 4; t++) {
    void *r;
    CHECK(pthread_join(th[t], &r) == 0);
    CHECK((size_t)r == 1);
  }
  CHECK(__xray_set_handler(record_arg0) == 1);
  CHECK(f(1) == 2); /* no __xray_patch() here */
  print_and_clear("premain", fns, 1);
  return 0;
}
