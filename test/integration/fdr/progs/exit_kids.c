/* A fork child that ends with _exit. Usage: exit_kids env|code [CONFIG]
 *   env:  FDR started by XRAY_OPTIONS (the test sets it);
 *   code: started here with CONFIG, and flushed here by the parent only.
 * The parent calls in_parent() 5 times, the child in_child() 7 times and
 * ends with _exit(0). */
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
  int code = argc > 1 && strcmp(argv[1], "code") == 0;
  if (code) {
    const char *cfg = argc > 2 ? argv[2] : "";
    if (__xray_log_init_mode("xray-fdr", cfg) != XRAY_LOG_INITIALIZED ||
        __xray_patch() != SUCCESS)
      return 2;
  }
  pid_t pid = fork();
  if (pid < 0)
    return 2;
  if (pid == 0) {
    for (int i = 0; i < 7; i++)
      in_child(i);
    _exit(0);
  }
  for (int i = 0; i < 5; i++)
    in_parent(i);
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return 3;
  if (code && (__xray_log_finalize() != XRAY_LOG_FINALIZED ||
               __xray_log_flushLog() != XRAY_LOG_FLUSHED))
    return 4;
  return 0;
}
