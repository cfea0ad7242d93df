/* function_coverage.c: a custom XRay mode that records which functions were
 * called, written in C.
 *
 * It shows the flow of the XRay framework documentation:
 *   1. a constructor registers the mode under a name
 *      (__xray_log_register_mode);
 *   2. the program initialises it with __xray_log_init_mode (this runtime
 *      selects a registered mode there; with compiler-rt call
 *      __xray_log_select_mode first);
 *   3. __xray_patch() turns the sleds on, the mode's handler sees every
 *      entry and exit;
 *   4. __xray_log_finalize() stops it and __xray_log_flushLog() reports.
 *
 * Build (the runtime linked whole, as the clang driver does):
 *   (clang 13-16 spell it -fnoxray-link-deps, clang 19 -fno-xray-link-deps)
 *   clang -fxray-instrument -fnoxray-link-deps -I include \
 *     docs/examples/function_coverage.c -o coverage \
 *     -Wl,--whole-archive build/lib/libxray.a -Wl,--no-whole-archive -lpthread
 *   ./coverage
 *
 * The mode and main() are never instrumented; the three workload functions
 * always are, whatever -fxray-instruction-threshold says. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NEVER __attribute__((xray_never_instrument))
#define ALWAYS __attribute__((xray_always_instrument, noinline))

/* ---- the mode -------------------------------------------------------- */

enum { MAX_FUNCTIONS = 1 << 16 };
static atomic_uchar called[MAX_FUNCTIONS]; /* indexed by function id */
static atomic_int state = XRAY_LOG_UNINITIALIZED;

NEVER static XRayLogInitStatus coverage_init(size_t buffer_size,
                                             size_t max_buffers, void *config,
                                             size_t config_size) {
  (void)buffer_size, (void)max_buffers, (void)config, (void)config_size;
  int expected = XRAY_LOG_UNINITIALIZED;
  if (!atomic_compare_exchange_strong(&state, &expected,
                                      XRAY_LOG_INITIALIZING))
    return (XRayLogInitStatus)expected; /* already running */
  for (size_t i = 0; i < MAX_FUNCTIONS; i++)
    atomic_store_explicit(&called[i], 0, memory_order_relaxed);
  atomic_store(&state, XRAY_LOG_INITIALIZED);
  return XRAY_LOG_INITIALIZED;
}

/* Runs on every patched entry and exit: one load, maybe one store. */
NEVER static void coverage_handler(int32_t id, XRayEntryType type) {
  if (type != ENTRY && type != LOG_ARGS_ENTRY)
    return;
  if (atomic_load_explicit(&state, memory_order_relaxed) !=
      XRAY_LOG_INITIALIZED)
    return;
  if (id > 0 && id < MAX_FUNCTIONS)
    atomic_store_explicit(&called[id], 1, memory_order_relaxed);
}

NEVER static XRayLogInitStatus coverage_finalize(void) {
  int expected = XRAY_LOG_INITIALIZED;
  if (!atomic_compare_exchange_strong(&state, &expected, XRAY_LOG_FINALIZED))
    return (XRayLogInitStatus)expected;
  return XRAY_LOG_FINALIZED;
}

/* The program's function names, to print ids as names. A real tool would
 * symbolize __xray_function_address(id) instead. */
struct named {
  const char *name;
  void (*fn)(void);
};
static const struct named *names;
static size_t name_count;

NEVER static const char *name_of(int32_t id) {
  uintptr_t address = __xray_function_address(id);
  for (size_t i = 0; i < name_count; i++)
    if ((uintptr_t)names[i].fn == address)
      return names[i].name;
  return "?";
}

NEVER static XRayLogFlushStatus coverage_flush(void) {
  if (atomic_load(&state) != XRAY_LOG_FINALIZED)
    return XRAY_LOG_NOT_FLUSHING;
  size_t total = __xray_max_function_id(), hit = 0;
  for (size_t id = 1; id <= total && id < MAX_FUNCTIONS; id++)
    hit += atomic_load(&called[id]);
  printf("coverage: %zu of %zu functions called\n", hit, total);
  for (size_t id = 1; id <= total && id < MAX_FUNCTIONS; id++)
    printf("  %s: %s\n", name_of((int32_t)id),
           atomic_load(&called[id]) ? "called" : "not called");
  atomic_store(&state, XRAY_LOG_UNINITIALIZED);
  return XRAY_LOG_FLUSHED;
}

NEVER __attribute__((constructor)) static void register_coverage_mode(void) {
  struct XRayLogImpl impl = {coverage_init, coverage_finalize,
                             coverage_handler, coverage_flush};
  if (__xray_log_register_mode("function-coverage", impl) !=
      XRAY_REGISTRATION_OK)
    fprintf(stderr, "could not register the function-coverage mode\n");
}

/* ---- the program ------------------------------------------------------ */

static volatile int sink;
ALWAYS void alpha(void) { sink += 1; }
ALWAYS void beta(void) { sink += 2; }
ALWAYS void gamma_never_called(void) { sink += 3; }

static const struct named program_names[] = {
    {"alpha", alpha}, {"beta", beta}, {"gamma_never_called", gamma_never_called}};

NEVER int main(void) {
  names = program_names;
  name_count = sizeof program_names / sizeof program_names[0];

  XRayLogInitStatus init = __xray_log_init_mode("function-coverage", "");
  printf("init: %d, mode: %s\n", (int)init,
         __xray_log_get_current_mode() ? __xray_log_get_current_mode()
                                       : "(none)");
  XRayPatchingStatus patched = __xray_patch();
  printf("patch: %d\n", (int)patched);

  alpha();
  beta();
  alpha();

  __xray_unpatch();
  printf("finalize: %d\n", (int)__xray_log_finalize());
  printf("flush: %d\n", (int)__xray_log_flushLog());
  return 0;
}
