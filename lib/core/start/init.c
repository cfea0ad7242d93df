/* Start-up: __xray_init, run from .preinit_array (glibc passes argc, argv,
 * envp there, while `environ` is still NULL in dynamically linked programs)
 * or, for a libc without preinit (musl), from a constructor; and the door
 * of a shared object's registration, which may come first. */
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/base/runtime_state.h"
#include "core/dispatch/dso_abi.h"
#include "core/dispatch/handlers.h"
#include "core/modes/log_registry.h"
#include "core/names/names.h"
#include "core/names/object_map.h"
#include "core/names/ready_names.h"
#include "core/names/symbols.h"
#include "core/objects/objects.h"
#include "core/objects/sled_map.h"
#include "core/options/options.h"
#include "core/output/output.h"
#include "core/patch/patch_api.h"
#include "core/start/start.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"
#include "xray/xray_interface.h"

#include <sched.h>

enum { INIT_NOT_STARTED = 0, INIT_RUNNING = 1, INIT_DONE = 2 };
static int init_state;
static XR_TLS bool init_on_this_thread;

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
  xr_program_name(); /* copied now, before the program can rewrite argv */
  xr_flags_load();
  xr_clock_init();
  xr_vector_state_init();
  /* Now, while the process most likely has one thread: registering
   * membarrier once threads exist waits for an RCU grace period
   * (milliseconds), which a mode's init would then pay. */
  xr_quiesce_setup();
  int self = xr_sled_map_load_self();
  if (self < 0) {
    xr_start_never(); /* a broken map: stays uninitialised */
  } else {
    /* What registration means above the registry, in this order: start
     * the trace (before the lock), patch_premain, names read afresh, the
     * map snapshots write and the names a crash's trace reads (after the
     * lock). */
    xr_objects_subscribe(&xr_start_events);
    xr_objects_subscribe(&xr_patch_api_events);
    xr_objects_subscribe(&xr_names_events);
    xr_objects_subscribe(&xr_object_map_events);
    xr_objects_subscribe(&xr_ready_names_events);
    /* Object 0 with its map, or with zero functions in a host built
     * without -fxray-instrument, whose shared objects register later. */
    xr_objects_register_self();
    xr_symbols_self_bias(); /* cached now: fork children never look it up */
    xr_pid(); /* cached now: _exit tells a vfork child by it (exit_hook.c) */
    xr_runtime_set_initialized();
    xr_registry_hook_exit(); /* now, so it runs after the program's own */
    if (self == XR_SELF_MAP_NONE) {
      xr_start_wait_for_objects(); /* the first object starts the trace */
    } else {
      xr_start_tracing();
      if (xr_flags.patch_premain) {
        XRayPatchingStatus s = __xray_patch();
        if (s != SUCCESS)
          xr_report(XR_ERROR, "patch_premain: patching failed (status %d)", (int)s);
      }
    }
  }
  init_on_this_thread = false;
  __atomic_store_n(&init_state, INIT_DONE, __ATOMIC_RELEASE);
}

/* A shared object's constructor may run before the executable's (a libc
 * without preinit): the runtime comes up first. */
XR_API int32_t __xray_register_dso(const void *sleds_begin, const void *sleds_end,
                                   const void *fn_index_begin, const void *fn_index_end,
                                   struct xr_dso_trampolines trampolines) {
  __xray_init();
  return xr_objects_register(sleds_begin, sleds_end, fn_index_begin, fn_index_end,
                             trampolines);
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
