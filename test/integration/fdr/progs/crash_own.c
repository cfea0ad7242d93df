/* A server's own crash handler, installed in main after FDR started (as
 * servers do), then a NULL write in crash_null() after some work. Usage:
 * crash_own CONFIG MODE, MODE one of
 *   reraise   sigaction(SA_SIGINFO): prints a report, restores SIG_DFL and
 *             raises the signal again (the usual crash reporter)
 *   exit      sigaction: prints a report, _exit(1)
 *   signal    signal(): prints a report, abort()
 *   resethand sigaction(SA_RESETHAND): prints a report and returns: the
 *             fault repeats under SIG_DFL
 *   ignore    first ignores SIGSEGV and raises it (nothing happens, as
 *             without XRay), then as exit
 * Before crashing it asks sigaction which SIGSEGV handler is installed and
 * prints "query: own" when it is the program's. */
#include "fdr_test.h"
#include <signal.h>
#include <string.h>
#include <unistd.h>

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }
NOINLINE void crash_null(volatile int *p) { *p = 1; }

NEVER static void say(const char *line) { write(1, line, strlen(line)); }

NEVER static void report(int signo) {
  say(signo == SIGSEGV ? "report: SIGSEGV, crashed in crash_null\n"
                       : "report: another signal\n");
}
NEVER static void on_reraise(int signo, siginfo_t *info, void *context) {
  (void)info;
  (void)context;
  report(signo);
  signal(signo, SIG_DFL);
  raise(signo);
}
NEVER static void on_exit_1(int signo) {
  report(signo);
  _exit(1);
}
NEVER static void on_abort(int signo) {
  report(signo);
  abort();
}
NEVER static void on_return(int signo) { report(signo); }

static volatile int *volatile null_pointer; /* the compiler cannot know */

int main(int argc, char **argv) {
  (void)argc;
  const char *mode = argv[2];
  fdr_start(argv[1]);
  for (int i = 0; i < 10; i++)
    work(i);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  void *own;
  if (strcmp(mode, "reraise") == 0) {
    sa.sa_sigaction = on_reraise;
    sa.sa_flags = SA_SIGINFO;
    own = (void *)on_reraise;
  } else if (strcmp(mode, "exit") == 0 || strcmp(mode, "ignore") == 0) {
    sa.sa_handler = on_exit_1;
    own = (void *)on_exit_1;
  } else if (strcmp(mode, "resethand") == 0) {
    sa.sa_handler = on_return;
    sa.sa_flags = SA_RESETHAND;
    own = (void *)on_return;
  } else {
    own = (void *)on_abort;
  }
  if (strcmp(mode, "ignore") == 0) {
    if (signal(SIGSEGV, SIG_IGN) == SIG_ERR || raise(SIGSEGV) != 0)
      return 3;
    say("ignored\n");
  }
  if (strcmp(mode, "signal") == 0) {
    if (signal(SIGSEGV, on_abort) == SIG_ERR)
      return 3;
  } else if (sigaction(SIGSEGV, &sa, NULL) != 0) {
    return 3;
  }
  struct sigaction now;
  if (sigaction(SIGSEGV, NULL, &now) != 0)
    return 3;
  if ((void *)now.sa_handler == own)
    say("query: own\n");
  crash_null(null_pointer);
  return 0;
}
