/* fork in the middle of tracing: the child records its own events into
 * fresh buffers (not the parent's) and writes its own file; the parent goes
 * on. Signal handlers running instrumented code are recorded like any code,
 * and an interval timer firing into the tracer meanwhile breaks nothing.
 * Usage: fork_signal CONFIG */
#include "fdr_test.h"
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

NOINLINE int before_fork(int x) { fdr_sink = x; return x + 1; }
NOINLINE int in_child(int x) { fdr_sink = x; return x + 2; }
NOINLINE int in_parent(int x) { fdr_sink = x; return x + 3; }
NOINLINE void handler_work(int x) { fdr_sink = x; }
NOINLINE void on_usr1(int sig) { handler_work(sig); }
/* At most MAX_ALARMS alarms, however slow the run (an emulator, a loaded
 * machine): the queue must hold every event for the exact counts. */
#define MAX_ALARMS 1000
static volatile sig_atomic_t alarms;
NOINLINE void on_alarm(int sig) {
  handler_work(sig);
  if (++alarms == MAX_ALARMS) {
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
  }
}
NOINLINE int busy(int x) { fdr_sink = x; return x ^ 1; }

int main(int argc, char **argv) {
  fdr_start(fdr_config(argc, argv));
  signal(SIGUSR1, on_usr1);
  for (int i = 0; i < 3; i++)
    fdr_sink = before_fork(i);
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 5; i++)
      fdr_sink = in_child(i);
    fdr_stop();
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  fdr_expect("child exit", WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
  for (int i = 0; i < 7; i++) {
    fdr_sink = in_parent(i);
    raise(SIGUSR1); /* the handler runs between two events */
  }
  /* asynchronous signals landing anywhere, also inside the handlers */
  signal(SIGALRM, on_alarm);
  struct itimerval every = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &every, NULL);
  for (int i = 0; i < 200000; i++)
    fdr_sink = busy(i);
  struct itimerval off;
  memset(&off, 0, sizeof off);
  setitimer(ITIMER_REAL, &off, NULL);
  signal(SIGALRM, SIG_IGN);
  fdr_stop();
  return 0;
}
