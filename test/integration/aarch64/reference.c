/* One program for reference.sh, linked once with our runtime and once with
 * compiler-rt's: runs MODE (xray-basic, xray-fdr, xray-profiling) with
 * CONFIG through the log interface, calling WHAT:
 *   calls   top -> 3 x mid -> 2 x leaf, and 3 x tail, whose call of leaf
 *           is a tail call (musttail: clang 14 makes none at -O1 in a
 *           framed function); on AArch64 clang marks its sled
 *           function-exit, and leaf runs after tail's exit
 *   args    add1 with argument logging, 3 calls
 *   events  a custom and a typed event, 3 each (clang 19: the first clang
 *           with AArch64 event sleds; others build without them)
 * in a thread of its own: compiler-rt's basic mode writes a thread's records
 * when the thread exits (on both CPUs), never the main thread's.
 * Usage: reference MODE CONFIG WHAT. Exit 2 on a wrong status. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))

static volatile long sink;

NOINLINE long leaf(long x) { sink = x; return x * 3 + 1; }
NOINLINE long mid(long x) { return leaf(x) + leaf(x + 1); }
NOINLINE long tail(long x) {
  sink = x;
  __attribute__((musttail)) return leaf(x ^ 5);
}
NOINLINE void top(void) {
  for (long i = 0; i < 3; i++)
    sink = mid(i) + tail(i);
}

__attribute__((xray_always_instrument, xray_log_args(1))) NOINLINE long add1(long x) { return x + 1; }

#if __clang_major__ >= 19
#define HAVE_EVENTS 1
static char payload[] = "ref-event";
/* Framed (a local array): clang 19's AArch64 event sled is a `bl`
 * the compiler does not count as a call (docs/design.md). */
NOINLINE void events(int n) {
  volatile char local[16];
  local[0] = (char)n;
  __xray_customevent(payload, sizeof payload - 1);
  __xray_typedevent(7, payload, 3);
  sink = local[0];
}
#endif

NEVER static void expect(const char *what, int got, int want) {
  if (got != want) {
    fprintf(stderr, "%s: got %d, want %d\n", what, got, want);
    exit(2);
  }
}

NEVER static void *work(void *arg) {
  const char *what = arg;
  if (!strcmp(what, "calls")) {
    top();
  } else if (!strcmp(what, "args")) {
    sink = add1(100) + add1(-6) + add1(0x1234567812345678);
  } else if (!strcmp(what, "events")) {
#ifdef HAVE_EVENTS
    for (int i = 0; i < 3; i++)
      events(i);
#else
    fprintf(stderr, "built without event sleds\n");
    return arg;
#endif
  } else {
    fprintf(stderr, "unknown: %s\n", what);
    return arg;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fprintf(stderr, "usage: %s MODE CONFIG calls|args|events\n", argv[0]), 2;
  const char *mode = argv[1], *what = argv[3];
  expect("select", __xray_log_select_mode(mode), XRAY_REGISTRATION_OK);
  expect("init", __xray_log_init_mode(mode, argv[2]), XRAY_LOG_INITIALIZED);
  expect("patch", __xray_patch(), SUCCESS);
  pthread_t t;
  expect("thread", pthread_create(&t, NULL, work, (void *)what), 0);
  void *status;
  expect("join", pthread_join(t, &status), 0);
  if (status)
    return 2;
  expect("unpatch", __xray_unpatch(), SUCCESS);
  expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  return 0;
}
