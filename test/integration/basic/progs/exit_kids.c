/* Ends without exit(). Usage: exit_kids HOW [CALLS]
 *   child:  forks a child that calls in_child() CALLS times and ends with
 *           _exit(0); the parent calls in_parent() 5 times and returns.
 *   _exit / _Exit: the program calls in_parent() CALLS times and ends with
 *           that function (the whole process, no fork).
 *   kill:   calls in_parent() once (its records stay buffered) and is
 *           killed by SIGKILL, before any append.
 * Prints "parent-pid child-pid" (child: 0 without a fork). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
volatile int sink;
XI void in_child(int x) { sink = x; }
XI void in_parent(int x) { sink = x; }
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  const char *how = argv[1];
  int calls = argc > 2 ? atoi(argv[2]) : 1;
  if (strcmp(how, "child") == 0) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
      return 2;
    if (pid == 0) {
      for (int i = 0; i < calls; i++)
        in_child(i);
      _exit(0);
    }
    for (int i = 0; i < 5; i++)
      in_parent(i);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      return 3;
    printf("%d %d\n", (int)getpid(), (int)pid);
    return 0;
  }
  for (int i = 0; i < calls; i++)
    in_parent(i);
  printf("%d 0\n", (int)getpid());
  fflush(stdout);
  if (strcmp(how, "_exit") == 0)
    _exit(0);
  if (strcmp(how, "_Exit") == 0)
    _Exit(0);
  if (strcmp(how, "kill") == 0)
    raise(SIGKILL);
  return 2;
}
