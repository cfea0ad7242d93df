/* The slow-call trigger: handle(n) serves call number n; calls listed in
 * SLOW take at least 300 ms (a busy wait on the clock), the others a few
 * ns (the script's trigger, 200 ms, fires for one of them only after a
 * 200 ms stall). With chrome output in CONFIG, after each slow call it
 * waits for that many snapshot .json files (fdr_wait_snapshot_json: the
 * snapshot's JSON while the program runs). Usage: slow_call CONFIG CALLS
 * SLOW... */
#include "fdr_test.h"
#include <string.h>
#include <time.h>

static long slow_ones[16];
static int slow_count;

NEVER static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

NOINLINE int step(int x) { fdr_sink = x; return x + 1; }

__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int
handle(long n) {
  int r = step((int)n);
  for (int i = 0; i < slow_count; i++)
    if (slow_ones[i] == n) {
      long until = now_ms() + 300;
      while (now_ms() < until)
        fdr_sink++;
    }
  return r;
}

int main(int argc, char **argv) {
  long calls = atol(argv[2]);
  for (int i = 3; i < argc && slow_count < 16; i++)
    slow_ones[slow_count++] = atol(argv[i]);
  int chrome = strstr(argv[1], "chrome") != NULL, slow_seen = 0;
  fdr_start(argv[1]);
  for (long n = 1; n <= calls; n++) {
    handle(n);
    for (int i = 0; chrome && i < slow_count; i++)
      if (slow_ones[i] == n)
        fdr_wait_snapshot_json("xray-log.slow_call.", ++slow_seen);
  }
  fdr_stop();
  return 0;
}
