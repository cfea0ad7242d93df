/* before() runs in the parent only; spawn() forks from inside an
 * instrumented call; the child runs in_child() 3 times, the parent
 * in_parent() 5 times. Prints "parent-pid child-pid". */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
XI int before(int x) { return x + 1; }
XI int in_child(int x) { return x * 2; }
XI int in_parent(int x) { return x * 3; }
XI pid_t spawn(void) { return fork(); }
__attribute__((xray_never_instrument)) int main(void) {
  volatile int s = before(1);
  pid_t pid = spawn();
  if (pid < 0)
    return 2;
  if (pid == 0) {
    for (int i = 0; i < 3; i++)
      s += in_child(i);
    return 0;
  }
  for (int i = 0; i < 5; i++)
    s += in_parent(i);
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return 3;
  printf("%d %d\n", (int)getpid(), (int)pid);
  return 0;
}
