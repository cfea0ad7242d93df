/* A service: 4 worker threads serve numbered requests (handle_request(n)
 * calls parse() and respond()) until the file "stop" exists. The program
 * handles SIGUSR2 itself (counts it) before FDR starts, so the snapshot
 * trigger must chain to it.
 * Files it writes for the test script: "ready" once every worker has served
 * a request; while the file "hold" exists, the workers pause between two
 * requests and "held" says the last request each served; "signalled" holds
 * the number of SIGUSR2 its own handler has seen. With chrome output in
 * CONFIG, before it writes "signalled" it waits for that many snapshot
 * .json files (polling, bounded: exit 3 after 60 s) and hard-links each to
 * `<name>.before_flush`: what the helper thread wrote before any flush.
 * Usage: service CONFIG */
#include "fdr_test.h"
#include <pthread.h>
#include <string.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { WORKERS = 4 };
static volatile sig_atomic_t usr2_seen;
static int stop, hold;
static long last[WORKERS];
static int holding[WORKERS];

NOINLINE int parse(long n) { fdr_sink = (int)n; return (int)n & 7; }
NOINLINE int respond(int x) { fdr_sink = x; return x + 1; }
__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int
handle_request(long n) {
  return respond(parse(n));
}

NEVER static void on_usr2(int signo) { (void)signo; usr2_seen++; }

NEVER static void *worker(void *arg) {
  int id = (int)(long)arg;
  for (long n = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); n++) {
    if (__atomic_load_n(&hold, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&holding[id], 1, __ATOMIC_RELEASE);
      while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
        usleep(100);
      __atomic_store_n(&holding[id], 0, __ATOMIC_RELEASE);
    }
    handle_request(n);
    __atomic_store_n(&last[id], n, __ATOMIC_RELEASE);
    /* A service waits for its requests: the buffers then keep well over
     * the time a snapshot takes to write, for every thread. */
    struct timespec gap = {0, 10000};
    nanosleep(&gap, NULL);
  }
  return NULL;
}

NEVER static void write_file(const char *name, const char *text) {
  FILE *f = fopen("tmp", "w");
  fputs(text, f);
  fclose(f);
  rename("tmp", name);
}

int main(int argc, char **argv) {
  int chrome = strstr(fdr_config(argc, argv), "chrome") != NULL;
  signal(SIGUSR2, on_usr2);
  fdr_start(fdr_config(argc, argv));
  pthread_t t[WORKERS];
  for (long i = 0; i < WORKERS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < WORKERS; i++)
    while (!__atomic_load_n(&last[i], __ATOMIC_ACQUIRE))
      usleep(1000);
  write_file("ready", "");
  int signalled = 0;
  char text[128];
  while (access("stop", F_OK) != 0) {
    bool want_hold = access("hold", F_OK) == 0;
    if (want_hold && !hold) {
      __atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
      for (int i = 0; i < WORKERS; i++)
        while (!__atomic_load_n(&holding[i], __ATOMIC_ACQUIRE))
          usleep(100);
      snprintf(text, sizeof text, "%ld %ld %ld %ld\n", last[0], last[1],
               last[2], last[3]);
      write_file("held", text);
    } else if (!want_hold && hold) {
      __atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
    }
    if (usr2_seen != signalled) {
      signalled = usr2_seen;
      if (chrome)
        fdr_wait_snapshot_json("xray-log.service.", signalled);
      snprintf(text, sizeof text, "%d\n", signalled);
      write_file("signalled", text);
    }
    usleep(1000);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  fdr_stop();
  printf("program's SIGUSR2 handler ran %d times\n", (int)usr2_seen);
  return 0;
}
