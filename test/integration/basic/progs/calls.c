/* calls THREADS N: each thread calls top(N) once: N mid() and 2N leaf(). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define XI __attribute__((xray_always_instrument, noinline))

XI int leaf(int x) { return x + 1; }
XI int mid(int x) { return leaf(x) * 2 + leaf(x + 1); }
XI int top(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += mid(i);
  return s;
}
XI void *worker(void *arg) {
  volatile int s = top((int)(long)arg);
  (void)s;
  return NULL;
}

__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long n = argc > 2 ? atol(argv[2]) : 1000;
  pthread_t t[16];
  if (threads < 1 || threads > 16)
    return 2;
  for (int i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)n) != 0)
      return 3;
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  printf("done\n");
  return 0;
}
