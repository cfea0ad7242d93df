/* A high-rate timer signal (ITIMER_REAL every 20 us) whose handler runs
 * instrumented code, while the main thread runs instrumented code non-stop.
 * A signal that lands while the thread is inside the runtime's handler must
 * have its events dropped (the re-entrancy guard), never corrupt the
 * record in progress.
 *
 * argv[1]: "handler" (a user handler) or a built-in mode. Each iteration
 * makes one ~1 us call and three tiny ones (mostly handler time, where
 * signals nest). Runs until 1000 signals were handled and at least 5000
 * iterations were made (about 20 per signal: the file stays small); prints
 * the counts and ids the script checks against the file llvm-xray reads:
 * the workload's entries and exits are exact, the signal function's
 * entries equal its exits and do not exceed the signals delivered. */
#include "stress.h"

#include <signal.h>
#include <sys/time.h>

WORK int in_signal(int x) { return x ^ 0x5a5a; }
WORK int work(int x) {
  volatile int spin = x;
  for (int i = 0; i < 300; i++)
    spin = spin + 1;
  return x * 9 + 4;
}
WORK int light(int x) { return x + 7; }

static volatile sig_atomic_t signals;
static volatile int sig_sink;
NOINST static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  sig_sink += in_signal(signals);
  signals++;
  errno = saved;
}

static long handler_events;
NOINST static void on_event(int32_t id, XRayEntryType t) {
  (void)id;
  (void)t;
  __atomic_add_fetch(&handler_events, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: %s handler|MODE", argv[0]);
  const char *mode = argv[1];
  if (!stress_is_mode(mode))
    CHECK(__xray_set_handler(on_event) == 1, "set_handler");
  const char *cfg = getenv("XRAY_STRESS_CONFIG");
  stress_start_mode(mode, cfg ? cfg : stress_default_config(mode));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
  CHECK(__xray_patch() == SUCCESS, "patch");
  struct itimerval it = {{0, 20}, {0, 20}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
  const uint64_t give_up = stress_now_ms() + 60000;
  long calls = 0;
  while (signals < 1000 || calls < 5000) {
    CHECK(work((int)calls) == (int)calls * 9 + 4, "work result");
    for (int k = 0; k < 3; k++)
      CHECK(light(k) == k + 7, "light result");
    calls++;
    CHECK(stress_now_ms() < give_up || (calls & 1023), "only %d signals in 60 s",
          (int)signals);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGALRM);
  sigprocmask(SIG_BLOCK, &block, NULL); /* a last pending one stays out */
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  stress_stop_mode(mode);
  printf("signals=%d calls=%ld work_id=%d signal_id=%d light_id=%d\n",
         (int)signals, calls, stress_id_of(work), stress_id_of(in_signal),
         stress_id_of(light));
  if (!stress_is_mode(mode)) {
    /* A user handler is not guarded: every event arrives. */
    CHECK(handler_events == 2 * (4 * calls + signals), "user handler saw %ld, want %ld",
          handler_events, 2 * (4 * calls + (long)signals));
  }
  return 0;
}
