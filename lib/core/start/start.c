/* Starting the trace XRAY_OPTIONS asks for, at the first instrumentation
 * map: at init when the executable has one, else when the first
 * instrumented shared object registers (a host built without
 * -fxray-instrument, e.g. an interpreter loading instrumented modules). A
 * program with no sled anywhere starts nothing: no mode, no file.
 *
 * And the messages for a trace that cannot happen: the user asked for one
 * (XRAY_OPTIONS) and would silently get none. Each is said once, with what
 * to change: at verbosity 0 only to a person (stderr is a terminal), so
 * scripts and logs see exactly the program's own output; at verbosity >= 1
 * always. */
#include "core/start/start.h"

#include "core/base/report.h"
#include "core/modes/args_hooks.h"
#include "core/modes/budget_hooks.h"
#include "core/modes/log_registry.h"
#include "core/objects/objects.h"
#include "core/options/options.h"
#include "core/patch/patching.h"
#include "core/thread/thread.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* The mode or flag in XRAY_OPTIONS that asks for a trace, or NULL. */
static const char *tracing_asked_by(void) {
  return xr_flags.xray_mode[0]     ? xr_flags.xray_mode
         : xr_flags.xray_naive_log ? "xray_naive_log=true"
         : xr_flags.xray_fdr_log   ? "xray_fdr_log=true"
         : xr_flags.patch_premain  ? "patch_premain=true"
                                   : NULL;
}

/* The exit hints run in the process that read XRAY_OPTIONS, not in its
 * fork children (which inherit the atexit list). */
static pid_t hint_pid;

/* At exit, for a mode named without patch_premain: O(1), once. */
static void say_if_nothing_was_patched(void) {
  const char *mode = __xray_log_get_current_mode();
  if (getpid() != hint_pid || mode == NULL || xr_patching_ever_enabled())
    return;
  xr_report(xr_hint_level(), "XRAY_OPTIONS selected mode '%s', but the program never "
            "called __xray_patch(), so nothing was recorded: add "
            "patch_premain=true to XRAY_OPTIONS to trace from the start",
            mode);
}

/* Each step is done once per process tree: a fork child whose parent had
 * another thread in here at the fork runs start() again (see below) and
 * keeps what that thread did before the fork (the mode it selected and
 * initialised is not initialised again: dso.fork_start). */
static void start(void) {
  static bool hint_registered;
  if (xr_args_first_map) /* lib/args: xray_args, before anything patches */
    xr_args_first_map();
  xr_registry_start_from_flags();
  if (!xr_flags.patch_premain && tracing_asked_by() != NULL &&
      !hint_registered) {
    hint_registered = true;
    hint_pid = getpid();
    atexit(say_if_nothing_was_patched);
  }
  if (xr_budget_first_map) /* lib/budget: xray_budget starts it */
    xr_budget_first_map();
}

/* start()'s once, by hand rather than pthread_once, for fork: in a child
 * whose parent had another thread inside start() at the fork, glibc's
 * pthread_once runs it again but TSan's waits for ever for the thread that
 * is not there. Here the child's fork hook makes it NOT_STARTED again,
 * unless the forking thread is the one inside (it returns into start() in
 * the child and finishes it). The thread inside may come back here (its
 * mode's init loads an instrumented object): it returns at once. */
enum { START_NOT, START_RUNNING, START_DONE };
static int start_state;
static XR_TLS bool starting_here;

static bool started(void) {
  return __atomic_load_n(&start_state, __ATOMIC_ACQUIRE) == START_DONE;
}

static void start_after_fork(void) {
  if (!starting_here &&
      __atomic_load_n(&start_state, __ATOMIC_RELAXED) == START_RUNNING)
    __atomic_store_n(&start_state, START_NOT, __ATOMIC_RELAXED);
}

void xr_start_tracing(void) {
  while (!started()) {
    /* Before taking it: a fork right after the take must find the hook
     * (registering is idempotent, and done only until started). */
    static int no_hook_said;
    if (xr_thread_on_fork_child(start_after_fork) != 0)
      xr_report_once(&no_hook_said, XR_ERROR, "no fork hook left: a child "
                     "forked while the trace starts may never start it");
    int expected = START_NOT;
    if (__atomic_compare_exchange_n(&start_state, &expected, START_RUNNING,
                                    false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      starting_here = true;
      start();
      starting_here = false;
      __atomic_store_n(&start_state, START_DONE, __ATOMIC_RELEASE);
      return;
    }
    if (starting_here)
      return;
    sched_yield(); /* another thread starts it: a few microseconds */
  }
}

static void say_no_map(const char *why) {
  const char *what = tracing_asked_by();
  if (what != NULL)
    xr_report(xr_hint_level(), "XRAY_OPTIONS asks for a trace (%s), but this program "
              "has no XRay instrumentation map%s, so nothing %s recorded: "
              "build it with clang -fxray-instrument (small functions get "
              "sleds only with -fxray-instruction-threshold=1 or "
              "__attribute__((xray_always_instrument)))", what, why,
              *why ? "was" : "will be");
}

void xr_start_never(void) { say_no_map(""); }

/* At exit: no sled anywhere, and XRAY_OPTIONS asked for a trace. */
static void say_if_no_object_came(void) {
  if (getpid() != hint_pid || started())
    return;
  say_no_map(" and loaded no instrumented shared object");
}

/* compiler-rt's line comes first and at start, where it prints it: its own
 * tests and users' scripts expect it before the program's output. Ours
 * follows on its own line and says what still happens (a host's modules
 * may register at any dlopen). */
void xr_start_wait_for_objects(void) {
  xr_report_untagged(XR_INFO, "XRay instrumentation map missing. Not initializing XRay.");
  xr_report(XR_INFO, "the executable has no instrumentation map (xray_instr_map): "
            "instrumented shared objects that register later (linked with "
            "libxray-dso.a) are still traced, and XRAY_OPTIONS' mode starts "
            "with the first");
  if (tracing_asked_by() != NULL) {
    hint_pid = getpid();
    atexit(say_if_no_object_came);
  }
}

const struct xr_object_events xr_start_events = {.coming = xr_start_tracing};
