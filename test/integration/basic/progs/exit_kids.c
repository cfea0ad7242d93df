/* Ends without exit(). Usage: exit_kids HOW [CALLS [CONFIG]]
 *   child:  forks a child that calls in_child() CALLS times and ends with
 *           _exit(0); the parent calls in_parent() 5 times and returns.
 *           With CONFIG, FDR is started here first with it (and patched),
 *           and finalized and flushed by the parent only, before it returns
 *           (the FDR test, fdr/exit_kids.sh).
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
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"
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
    const char *cfg = argc > 3 ? argv[3] : NULL;
    if (cfg && (__xray_log_init_mode("xray-fdr", cfg) != XRAY_LOG_INITIALIZED ||
                __xray_patch() != SUCCESS))
      return 2;
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
    if (cfg && (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
                __xray_log_flushLog() != XRAY_LOG_FLUSHED))
      return 4;
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
