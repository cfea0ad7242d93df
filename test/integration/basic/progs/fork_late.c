/* The parent records nothing and exits at once; the child waits until the
 * parent is gone (EOF on a pipe: the parent's exit handlers, which remove
 * its empty log, have run), then calls work() 5 times.
 * Prints "parent-pid child-pid" from the parent. */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int work(int x) { return x + 7; }
__attribute__((xray_never_instrument)) int main(void) {
  int fds[2];
  if (pipe(fds) != 0)
    return 2;
  pid_t pid = fork();
  if (pid < 0)
    return 2;
  if (pid == 0) {
    close(fds[1]);
    char c;
    while (read(fds[0], &c, 1) > 0)
      ;
    volatile int s = 0;
    for (int i = 0; i < 5; i++)
      s += work(i);
    return 0;
  }
  close(fds[0]);
  printf("%d %d\n", (int)getpid(), (int)pid);
  return 0;
}
