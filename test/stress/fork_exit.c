/* Process events.
 *
 * fork MODE [N]: a thread runs instrumented code non-stop while the main
 *   thread forks N (default 20) children; each child (bounded by alarm) runs 1000 instrumented
 *   calls, checks their results and exits normally. A child that deadlocks
 *   on state the parent's thread held at fork time dies by SIGALRM and the
 *   test fails. The parent then finalizes and flushes normally.
 * exit MODE: a thread runs instrumented code non-stop while the main thread
 *   calls exit(0); the runtime's exit-time flush must not crash or hang and
 *   must leave a readable file.
 * MODE: "handler" (a user handler counting events) or a built-in mode
 * (initialised from code in fork, from XRAY_OPTIONS by the script in exit). */
#include "stress.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

WORK int inner(int x) { return x * 3 + 2; }
WORK int outer(int x) { return inner(x) - inner(x - 1); } /* always 3 */

static atomic_long events;
static atomic_bool stop;
NOINST static void on_event(int32_t id, XRayEntryType t) {
  (void)id;
  (void)t;
  atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
}

NOINST static void *spinner(void *arg) {
  (void)arg;
  long n = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    CHECK(outer((int)(n & 1023)) == 3, "spinner: wrong result");
    n++;
  }
  return (void *)n;
}

NOINST static int child(bool handler) {
  alarm(30);
  atomic_store(&events, 0);
  for (int i = 0; i < 1000; i++)
    if (outer(i) != 3)
      return 3;
  if (handler && atomic_load(&events) != 1000 * 6)
    return 4; /* outer + 2 inner, entry and exit each */
  return 0;
}

int main(int argc, char **argv) {
  CHECK(argc == 3 || argc == 4, "usage: %s fork|exit handler|MODE [FORKS]", argv[0]);
  const int forks = argc == 4 ? atoi(argv[3]) : 20;
  const bool do_fork = strcmp(argv[1], "fork") == 0;
  const char *mode = argv[2];
  const bool handler = !stress_is_mode(mode);
  if (handler)
    CHECK(__xray_set_handler(on_event) == 1, "set_handler");
  if (do_fork) {
    stress_start_mode(mode, stress_default_config(mode));
    CHECK(__xray_patch() == SUCCESS, "patch");
  } /* exit: the mode was started and patched by XRAY_OPTIONS */
  if (handler && !do_fork)
    CHECK(__xray_patch() == SUCCESS, "patch");

  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, spinner, NULL);
  if (!do_fork) {
    for (int i = 0; i < 20000; i++)
      CHECK(outer(i) == 3, "main: wrong result");
    printf("exit with threads running\n");
    fflush(stdout);
    exit(0);
  }
  for (int k = 0; k < forks; k++) {
    for (int i = 0; i < 50; i++)
      USE(outer(i)); /* the parent is inside instrumented code too */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0)
      _exit(child(handler));
    int status;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(WIFEXITED(status), "child %d killed by signal %d%s", k,
          WTERMSIG(status), WTERMSIG(status) == SIGALRM ? " (hung)" : "");
    CHECK(WEXITSTATUS(status) == 0, "child %d exit status %d", k, WEXITSTATUS(status));
  }
  atomic_store(&stop, true);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  stress_stop_mode(mode);
  printf("fork %s: ok\n", mode);
  return 0;
}
