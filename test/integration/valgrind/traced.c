/* The program the valgrind tests trace: two threads, each calling mid()
 * CALLS times; mid() calls leaf() twice and, every 20th call, custom_event()
 * and typed_event(), which log one custom and one typed event each (where
 * clang emits event sleds: x86-64, or AArch64 with clang 19).
 * Usage: traced MODE CONFIG CALLS [SNAPSHOT]
 * MODE is xray-basic, xray-fdr or xray-profiling, CONFIG its options, or
 * "-": the mode is the one XRAY_OPTIONS starts, flushed at exit; with
 * SNAPSHOT (FDR), one __xray_fdr_snapshot after the threads end. Prints
 * "id NAME N" for each traced function (llvm-xray reads no instrumentation
 * map with typed-event sleds, so the script names ids from these lines),
 * "events N" (custom events logged, as many typed) and "snapshot PATH". */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_fdr.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#define NOINLINE __attribute__((noinline))
#define NEVER __attribute__((xray_never_instrument))
#if defined(__x86_64__) || __clang_major__ >= 19
#define EVENTS 1
#else
#define EVENTS 0
#endif

static volatile int sink;
static int calls;
/* Payloads are globals: clang 14 crashes compiling event sleds on
 * register operands. */
static char custom_payload[] = "valgrind-custom";
static char typed_payload[] = "valgrind-typed!";

NOINLINE void leaf(int i) { sink += i; }
NOINLINE void custom_event(void) {
#if EVENTS
  __xray_customevent(custom_payload, sizeof custom_payload - 1);
#endif
}
NOINLINE void typed_event(void) {
#if EVENTS
  __xray_typedevent(7, typed_payload, sizeof typed_payload - 1);
#endif
}
NOINLINE void mid(int i) {
  leaf(i);
  leaf(i + 1);
  if (i % 20 == 0) {
    custom_event();
    typed_event();
  }
}
NOINLINE void *worker(void *arg) {
  (void)arg;
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

int main(int argc, char **argv);
NEVER static void print_ids(void) {
  static const struct { const char *name; void *fn; } fns[] = {
      {"leaf", (void *)leaf}, {"custom_event", (void *)custom_event},
      {"typed_event", (void *)typed_event}, {"mid", (void *)mid},
      {"worker", (void *)worker}, {"main", (void *)main}};
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
      if (__xray_function_address((int32_t)id) == (uintptr_t)fns[k].fn)
        printf("id %s %zu\n", fns[k].name, id);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: traced MODE CONFIG CALLS [SNAPSHOT]\n");
    return 2;
  }
  calls = atoi(argv[3]);
  bool api = strcmp(argv[1], "-") != 0;
  if (api) {
    expect("select", __xray_log_select_mode(argv[1]), XRAY_REGISTRATION_OK);
    expect("init", __xray_log_init_mode(argv[1], argv[2]), XRAY_LOG_INITIALIZED);
    expect("patch", __xray_patch(), SUCCESS);
  }
  pthread_t t[2];
  for (int k = 0; k < 2; k++)
    expect("pthread_create", pthread_create(&t[k], NULL, worker, NULL), 0);
  for (int k = 0; k < 2; k++)
    pthread_join(t[k], NULL);
  if (argc > 4) {
    char path[512];
    expect("snapshot", __xray_fdr_snapshot(path, sizeof path), XRAY_SNAPSHOT_OK);
    printf("snapshot %s\n", path);
  }
  if (api) {
    expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
    expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  }
  print_ids();
  printf("events %d\n", EVENTS ? 2 * ((calls + 19) / 20) : 0);
  return 0;
}
