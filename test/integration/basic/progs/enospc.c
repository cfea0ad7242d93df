/* A full disk, simulated: write(2) to any fd above 2 succeeds FAIL_AFTER
 * times (environment), then writes half of what it is given once and fails
 * with ENOSPC from then on. work() is called 1000 times. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
static volatile int sink;
XI void work(int x) { sink = x; }

ssize_t __real_write(int fd, const void *buf, size_t n);
__attribute__((xray_never_instrument)) ssize_t
__wrap_write(int fd, const void *buf, size_t n) {
  static int writes;
  static const char *limit;
  if (fd <= 2)
    return __real_write(fd, buf, n);
  if (!limit)
    limit = getenv("FAIL_AFTER");
  int allowed = limit ? atoi(limit) : 1 << 30;
  writes++;
  if (writes <= allowed)
    return __real_write(fd, buf, n);
  if (writes == allowed + 1 && n > 1)
    return __real_write(fd, buf, n / 2); /* a short write first */
  errno = ENOSPC;
  return -1;
}

__attribute__((xray_never_instrument)) int main(void) {
  for (int i = 0; i < 1000; i++)
    work(i);
  printf("done\n");
  return 0;
}
