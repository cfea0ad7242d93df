/* Parent and child append to one log at the same time: after fork both call
 * work() N times with tiny thread buffers (many appends each, interleaved).
 * Prints "parent-pid child-pid". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int work(int x) { return x ^ 0x55; }
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  volatile int s = 0;
  pid_t pid = fork();
  if (pid < 0)
    return 2;
  for (int i = 0; i < n; i++)
    s += work(i);
  if (pid == 0)
    return 0;
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return 3;
  printf("%d %d\n", (int)getpid(), (int)pid);
  return 0;
}
