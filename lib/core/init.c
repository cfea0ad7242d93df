/* Start-up: __xray_init, run from .preinit_array (glibc passes argc, argv,
 * envp there, while `environ` is still NULL in dynamically linked programs)
 * or, for a libc without preinit (musl), from a constructor. */
#include "clock.h"
#include "handlers.h"
#include "log_registry.h"
#include "objects.h"
#include "options.h"
#include "output.h"
#include "patching.h"
#include "report.h"
#include "sled_map.h"
#include "thread.h"
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { INIT_NOT_STARTED = 0, INIT_RUNNING = 1, INIT_DONE = 2 };
static int init_state;
static XR_TLS bool init_on_this_thread;

/* ---- messages for a trace that cannot happen ---------------------------
 * The user asked for a trace (XRAY_OPTIONS) and would silently get none:
 * these say so once, with what to change. At verbosity 0 only to a person
 * (stderr is a terminal): scripts and logs see exactly the program's own
 * output, as without XRay. At verbosity >= 1 always. */

/* The mode or flag in XRAY_OPTIONS that asks for a trace, or NULL. */
static const char *tracing_asked_by(void) {
  return xr_flags.xray_mode[0]     ? xr_flags.xray_mode
         : xr_flags.xray_naive_log ? "xray_naive_log=true"
         : xr_flags.xray_fdr_log   ? "xray_fdr_log=true"
         : xr_flags.patch_premain  ? "patch_premain=true"
                                   : NULL;
}

static void say_if_tracing_asked_without_map(void) {
  const char *what = tracing_asked_by();
  if (what != NULL)
    xr_report(xr_hint_level(), "XRAY_OPTIONS asks for a trace (%s), but this program "
              "has no XRay instrumentation map, so nothing will be recorded: "
              "build it with clang -fxray-instrument (small functions get "
              "sleds only with -fxray-instruction-threshold=1 or "
              "__attribute__((xray_always_instrument)))", what);
}


/* At exit, for a mode named without patch_premain: O(functions), once, in
 * the process that read XRAY_OPTIONS (not in its fork children). */
static pid_t hint_pid;
static void say_if_nothing_was_patched(void) {
  const char *mode = __xray_log_get_current_mode();
  if (getpid() != hint_pid || mode == NULL || xr_patching_ever_enabled())
    return;
  xr_report(xr_hint_level(), "XRAY_OPTIONS selected mode '%s', but the program never "
            "called __xray_patch(), so nothing was recorded: add "
            "patch_premain=true to XRAY_OPTIONS to trace from the start",
            mode);
}

XR_API void __xray_init(void) {
  int expected = INIT_NOT_STARTED;
  if (!__atomic_compare_exchange_n(&init_state, &expected, INIT_RUNNING, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    /* Someone else initialises: wait for them (a few microseconds), unless
     * it is this very thread calling back in. */
    while (!init_on_this_thread &&
           __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_DONE)
      sched_yield();
    return;
  }
  init_on_this_thread = true;
  xr_flags_load();
  xr_clock_init();
  xr_vector_state_init();
  if (xr_sled_map_load_self() != 0) {
    say_if_tracing_asked_without_map();
  } else {
    xr_objects_register_self();
    xr_registry_start_from_flags();
    if (!xr_flags.patch_premain && tracing_asked_by() != NULL) {
      hint_pid = getpid();
      atexit(say_if_nothing_was_patched);
    }
    if (xr_flags.patch_premain) {
      XRayPatchingStatus s = __xray_patch();
      if (s != SUCCESS)
        xr_report(XR_ERROR, "patch_premain: patching failed (status %d)", (int)s);
    }
  }
  init_on_this_thread = false;
  __atomic_store_n(&init_state, INIT_DONE, __ATOMIC_RELEASE);
}

static void xr_preinit(int argc, char **argv, char **envp) {
  xr_thread_setup(); /* before any library constructor takes pthread keys */
  xr_set_envp(envp);
  if (argc > 0 && argv && argv[0])
    xr_set_argv0(argv[0]);
  __xray_init();
}

__attribute__((section(".preinit_array"), used)) static void (*const xr_preinit_entry)(
    int, char **, char **) = xr_preinit;

/* Fallback when .preinit_array did not run (musl): environ works here. */
extern char **environ;
__attribute__((constructor(101))) static void xr_init_from_constructor(void) {
  if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_NOT_STARTED)
    return;
  xr_thread_setup();
  xr_set_envp(environ);
  __xray_init();
}
