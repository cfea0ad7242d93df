/* A traced workload for the trace views: THREADS workers, each calling
 * mid() CALLS times; mid() calls leaf() twice and, every 7th call when
 * JUMPS is set, deep(3), which recurses to deep(0) and longjmps back into
 * mid(): 4 frames whose exits never run. With EVENTS, every 100th mid()
 * calls log_event(), which logs a custom event whose payload needs JSON
 * escaping.
 * Usage: threads MODE CONFIG THREADS CALLS JUMPS EVENTS
 * (MODE xray-basic or xray-fdr, CONFIG its option string). Workers are
 * named worker-0, worker-1, ... With THREADS_SNAPSHOT set (FDR), one
 * snapshot is taken once the workers are done, before finalize. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_fdr.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))

static volatile int sink;
static __thread jmp_buf jump;
static int calls, jumps, events;
static pthread_barrier_t start;

NOINLINE void leaf(int i) { sink += i; }
NOINLINE void deep(int n) {
  if (n == 0)
    longjmp(jump, 1);
  deep(n - 1);
  sink++;
}
/* The event from a function of its own: the payload's address arrives in
 * the first argument register, where the event sled wants it, and the size
 * is a constant. Inline in mid(), clang 19 for AArch64 kept the size in x0
 * and its sled's moves (mov x0, <data>; mov x1, <size>, in that order)
 * overwrote it; clang 13-16 for x86-64 crash on a size passed in as an
 * argument. */
static const char payload[] = "say \"hi\"\\ \n\t\x01\xff";
static const char *volatile payload_at = payload; /* not specialised on */
NOINLINE void log_event(const char *data) {
  __xray_customevent((void *)data, sizeof payload - 1);
}
NOINLINE void mid(int i) {
  leaf(i);
  leaf(i + 1);
  if (events && i % 100 == 0)
    log_event(payload_at);
  if (jumps && i % 7 == 0 && !setjmp(jump))
    deep(3);
}
NOINLINE void *worker(void *arg) {
  char name[16];
  snprintf(name, sizeof name, "worker-%d", (int)(long)arg);
  pthread_setname_np(pthread_self(), name);
  pthread_barrier_wait(&start);
  for (int i = 0; i < calls; i++)
    mid(i);
  return NULL;
}

NEVER static void expect(const char *what, int got, int want) {
  if (got != want) {
    fprintf(stderr, "%s: got %d, want %d\n", what, got, want);
    exit(2);
  }
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: threads MODE CONFIG THREADS CALLS JUMPS EVENTS\n");
    return 2;
  }
  int threads = atoi(argv[3]);
  calls = atoi(argv[4]);
  jumps = atoi(argv[5]);
  events = atoi(argv[6]);
  expect("select", __xray_log_select_mode(argv[1]), XRAY_REGISTRATION_OK);
  expect("init", __xray_log_init_mode(argv[1], argv[2]), XRAY_LOG_INITIALIZED);
  expect("patch", __xray_patch(), SUCCESS);
  pthread_t t[64];
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int k = 0; k < threads; k++)
    pthread_create(&t[k], NULL, worker, (void *)(long)k);
  for (int k = 0; k < threads; k++)
    pthread_join(t[k], NULL);
  if (getenv("THREADS_SNAPSHOT") != NULL) {
    char path[4096];
    expect("snapshot", __xray_fdr_snapshot(path, sizeof path), XRAY_SNAPSHOT_OK);
  }
  expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  return 0;
}
