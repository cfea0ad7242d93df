/* The XRayLogImpl registry: register, select, init, finalize, flush, and
 * in-memory buffer iteration, with compiler-rt's statuses (compiler-rt's
 * include/xray/xray_log_interface.h).
 *
 * Differences on purpose:
 * - __xray_log_init_mode(name, cfg) on a registered mode that is not
 *   selected selects it first (compiler-rt returns UNINITIALIZED);
 * - selecting a built-in mode installs no handler (its log_init installs its
 *   lean handlers), so a mode that is only selected costs nothing per event;
 * - the exit policy below writes what a mode recorded at exit.
 *
 * The one exit policy (docs/modes.md): at exit, one hook finalizes and
 * flushes (a) each mode that asked for it from its log_init
 * (xr_registry_flush_at_exit: basic and profiling, as compiler-rt's do),
 * if it still has a session, however it was started; and (b) the current
 * mode if the environment started it (compiler-rt leaves FDR and profiling
 * data unwritten). FDR started from code writes only when the program
 * flushes it: a flight recorder dumps on demand. The hook is registered at
 * start-up (or at the first request), so it runs after the program's own
 * exit handlers; no mode registers one of its own. Another thread inside a
 * built-in mode's init, finalize or flush is waited for, bounded, first
 * (so the policy acts on a settled state) and last (a flush that thread
 * began meanwhile): the process must not end in the middle of its writes.
 *
 * Cold path: one mutex guards the table. It is never held while calling into
 * a mode, so a mode's log_init may call back into the registry (e.g. to set
 * its buffer iterator). No malloc: names live in fixed slots. */
#include "core/modes/log_registry.h"
#include "core/base/report.h"
#include "core/dispatch/handlers.h"
#include "core/modes/budget_hooks.h"
#include "core/modes/mode_lifecycle.h"
#include "core/options/options.h"
#include "core/thread/fork_locks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Our installs are always full handlers (users' code; built-in modes
 * install their own lean ones). */
static void install(unsigned slot, void *fn) {
  xr_handler_install(slot, fn, 0);
}

enum { XR_USER_MODES_MAX = 16, XR_MODE_NAME_MAX = 128 };

struct user_mode {
  char name[XR_MODE_NAME_MAX];
  struct XRayLogImpl impl;
};

/* Built-in modes are known from the start: no constructor order issue. A
 * mode whose room is not linked has a NULL (weak) impl and is skipped. */
static const struct builtin_mode {
  const char *name;
  const struct XRayLogImpl *impl;
  struct xr_lifecycle *lifecycle;
} builtins[] = {
    {"xray-basic", &xr_basic_impl, &xr_basic_lifecycle},
    {"xray-fdr", &xr_fdr_impl, &xr_fdr_lifecycle},
    {"xray-profiling", &xr_profiling_impl, &xr_profiling_lifecycle},
};

/* Modes written at exit however they were started (exit policy (a)). */
static const struct XRayLogImpl *flush_at_exit_modes[4];

/* XR_LOCK_REGISTRY (fork_locks.h) guards everything below. */
static struct user_mode user_modes[XR_USER_MODES_MAX];
static unsigned user_mode_count;

/* The selection. `current_name` points into builtins[] or user_modes[]
 * (stable storage); `has_impl` may be set without a name by
 * __xray_set_log_impl. */
static const char *current_name;
static struct XRayLogImpl current_impl;
static bool has_impl;
static bool current_is_builtin;
/* Our own arg0 handler installation, to undo it when the selection moves. */
static bool installed_user_handler;

/* What the registry last saw the current mode report; the exit hook needs
 * to know whether an environment-started mode is still running. */
static XRayLogInitStatus current_state;
static bool env_started;
static struct XRayLogImpl env_impl;
/* xray_mode named a mode that is not registered yet (user modes register
 * from constructors, after start-up): select it when it registers. */
static char pending_mode[XR_MODE_NAME_MAX];
static bool pending_reported; /* said unknown by check_pending_mode */

static XRayBuffer empty_iterator(XRayBuffer b) {
  (void)b;
  return (XRayBuffer){NULL, 0};
}
static XRayBuffer (*volatile buffer_iterator)(XRayBuffer) = empty_iterator;

static bool impl_complete(const struct XRayLogImpl *impl) {
  return impl->log_init && impl->log_finalize && impl->handle_arg0 &&
         impl->flush_log;
}

static bool same_impl(const struct XRayLogImpl *a,
                      const struct XRayLogImpl *b) {
  return a->log_init == b->log_init && a->log_finalize == b->log_finalize &&
         a->handle_arg0 == b->handle_arg0 && a->flush_log == b->flush_log;
}

/* Finds a mode by name; caller holds the lock. */
static bool find_mode(const char *name, const char **stable_name,
                      struct XRayLogImpl *impl, bool *builtin) {
  for (size_t i = 0; i < XR_ARRAY_SIZE(builtins); i++)
    if (builtins[i].impl && impl_complete(builtins[i].impl) &&
        strcmp(builtins[i].name, name) == 0) {
      *stable_name = builtins[i].name;
      *impl = *builtins[i].impl;
      *builtin = true;
      return true;
    }
  for (unsigned i = 0; i < user_mode_count; i++)
    if (strcmp(user_modes[i].name, name) == 0) {
      *stable_name = user_modes[i].name;
      *impl = user_modes[i].impl;
      *builtin = false;
      return true;
    }
  return false;
}

/* Makes a found mode current; caller holds the lock. */
static void select_locked(const char *name, const struct XRayLogImpl *impl,
                          bool builtin) {
  bool changed = !has_impl || !same_impl(&current_impl, impl);
  current_name = name;
  current_impl = *impl;
  has_impl = true;
  current_is_builtin = builtin;
  if (changed)
    current_state = XRAY_LOG_UNINITIALIZED;
  if (!builtin) {
    install(XR_SLOT_ARG0, (void *)impl->handle_arg0);
    installed_user_handler = true;
  } else if (installed_user_handler) {
    install(XR_SLOT_ARG0, NULL); /* the old user mode's */
    installed_user_handler = false;
  }
}

/* Hook for the "selected but nothing patched" hint (docs / mode rooms may
 * refine the wording): a mode that is selected without patch_premain
 * records nothing until the program calls __xray_patch(). */
static void hint_selected_without_patching(const char *mode) {
  xr_report(XR_INFO, "mode '%s' selected; nothing is recorded until the "
            "program calls __xray_patch() (or set patch_premain=true in "
            "XRAY_OPTIONS)", mode);
}

/* ---- public API ------------------------------------------------------ */

XR_API XRayLogRegisterStatus __xray_log_register_mode(const char *mode,
                                                      XRayLogImpl impl) {
  if (!mode || !impl_complete(&impl))
    return XRAY_INCOMPLETE_IMPL;
  size_t len = strlen(mode);
  if (len >= XR_MODE_NAME_MAX) {
    xr_report(XR_ERROR, "cannot register mode '%.40s...': name longer than "
              "%d bytes", mode, XR_MODE_NAME_MAX - 1);
    return XRAY_INCOMPLETE_IMPL;
  }
  XRayLogRegisterStatus status = XRAY_REGISTRATION_OK;
  bool start = false, started_pending = false;
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  const char *name;
  struct XRayLogImpl existing;
  bool builtin;
  if (find_mode(mode, &name, &existing, &builtin)) {
    status = XRAY_DUPLICATE_MODE;
  } else if (user_mode_count >= XR_USER_MODES_MAX) {
    xr_report(XR_ERROR, "cannot register mode '%s': %d modes are registered "
              "already (the limit)", mode, XR_USER_MODES_MAX);
    status = XRAY_INCOMPLETE_IMPL;
  } else {
    struct user_mode *m = &user_modes[user_mode_count];
    memcpy(m->name, mode, len + 1);
    m->impl = impl;
    __atomic_store_n(&user_mode_count, user_mode_count + 1, __ATOMIC_RELEASE);
    if (pending_mode[0] && strcmp(pending_mode, mode) == 0) {
      pending_mode[0] = 0;
      select_locked(m->name, &m->impl, false);
      started_pending = true;
      start = xr_flags.patch_premain;
      if (start) {
        env_started = true;
        env_impl = impl;
      }
    }
  }
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  if (start) {
    XRayLogInitStatus s = __xray_log_init(0, 0, (void *)"", 0);
    if (s != XRAY_LOG_INITIALIZED)
      xr_report(XR_ERROR, "mode '%s' (xray_mode) failed to initialise "
                "(status %d)", mode, (int)s);
  } else if (started_pending) {
    hint_selected_without_patching(mode);
  }
  return status;
}

XR_API XRayLogRegisterStatus __xray_log_select_mode(const char *mode) {
  if (!mode)
    return XRAY_MODE_NOT_FOUND;
  XRayLogRegisterStatus status = XRAY_MODE_NOT_FOUND;
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  const char *name;
  struct XRayLogImpl impl;
  bool builtin;
  if (find_mode(mode, &name, &impl, &builtin)) {
    select_locked(name, &impl, builtin);
    status = XRAY_REGISTRATION_OK;
  }
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  return status;
}

XR_API const char *__xray_log_get_current_mode(void) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  const char *name = current_name;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  return name;
}

const char *xr_registry_current(XRayLogInitStatus *state) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  const char *name = has_impl ? current_name : NULL;
  *state = has_impl ? current_state : XRAY_LOG_UNINITIALIZED;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  return name;
}

XR_API void __xray_set_log_impl(XRayLogImpl impl) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  if (!impl_complete(&impl)) {
    has_impl = false;
    current_name = NULL;
    current_state = XRAY_LOG_UNINITIALIZED;
    installed_user_handler = false;
    install(XR_SLOT_ARG0, NULL);
    install(XR_SLOT_ARG1, NULL);
  } else {
    if (!has_impl || !same_impl(&current_impl, &impl))
      current_state = XRAY_LOG_UNINITIALIZED;
    current_impl = impl;
    has_impl = true;
    current_is_builtin = false;
    install(XR_SLOT_ARG0, (void *)impl.handle_arg0);
    installed_user_handler = true;
  }
  xr_fork_lock_release(XR_LOCK_REGISTRY);
}

XR_API void __xray_remove_log_impl(void) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  has_impl = false;
  current_state = XRAY_LOG_UNINITIALIZED;
  installed_user_handler = false;
  install(XR_SLOT_ARG0, NULL);
  install(XR_SLOT_ARG1, NULL);
  xr_fork_lock_release(XR_LOCK_REGISTRY);
}

/* Copies the current impl out of the lock; false when there is none. */
static bool current(struct XRayLogImpl *impl) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  bool ok = has_impl;
  if (ok)
    *impl = current_impl;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  return ok;
}

/* Remembers what the mode reported, if it is still the current one. */
static void note_state(const struct XRayLogImpl *impl, XRayLogInitStatus s) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  if (has_impl && same_impl(&current_impl, impl))
    current_state = s;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
}

XR_API XRayLogInitStatus __xray_log_init(size_t buffer_size,
                                         size_t max_buffers, void *args,
                                         size_t args_size) {
  struct XRayLogImpl impl;
  if (!current(&impl))
    return XRAY_LOG_UNINITIALIZED;
  XRayLogInitStatus s = impl.log_init(buffer_size, max_buffers, args, args_size);
  note_state(&impl, s);
  return s;
}

static XRayLogInitStatus init_mode(const char *mode, const char *config,
                                   size_t config_size) {
  if (!mode || !config)
    return XRAY_LOG_UNINITIALIZED;
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  const char *name;
  struct XRayLogImpl impl;
  bool builtin;
  bool found = find_mode(mode, &name, &impl, &builtin);
  /* Our difference: a registered mode is selected (again) when needed. */
  if (found && !(has_impl && current_name == name &&
                 same_impl(&current_impl, &impl)))
    select_locked(name, &impl, builtin);
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  if (!found)
    return XRAY_LOG_UNINITIALIZED;
  XRayLogInitStatus s = impl.log_init(0, 0, (void *)config, config_size);
  note_state(&impl, s);
  return s;
}

XR_API XRayLogInitStatus __xray_log_init_mode(const char *mode,
                                              const char *config) {
  return init_mode(mode, config, 0);
}

XR_API XRayLogInitStatus __xray_log_init_mode_bin(const char *mode,
                                                  const char *config,
                                                  size_t config_size) {
  return init_mode(mode, config, config_size);
}

XR_API XRayLogInitStatus __xray_log_finalize(void) {
  struct XRayLogImpl impl;
  if (!current(&impl))
    return XRAY_LOG_UNINITIALIZED;
  XRayLogInitStatus s = impl.log_finalize();
  note_state(&impl, s);
  return s;
}

XR_API XRayLogFlushStatus __xray_log_flushLog(void) {
  struct XRayLogImpl impl;
  if (!current(&impl))
    return XRAY_LOG_NOT_FLUSHING;
  XRayLogFlushStatus s = impl.flush_log();
  if (s == XRAY_LOG_FLUSHED)
    note_state(&impl, XRAY_LOG_UNINITIALIZED); /* modes reset after flush */
  return s;
}

XR_API void __xray_log_set_buffer_iterator(XRayBuffer (*it)(XRayBuffer)) {
  __atomic_store_n(&buffer_iterator, it ? it : empty_iterator,
                   __ATOMIC_RELEASE);
}

XR_API void __xray_log_remove_buffer_iterator(void) {
  __atomic_store_n(&buffer_iterator, empty_iterator, __ATOMIC_RELEASE);
}

XR_API XRayLogFlushStatus
__xray_log_process_buffers(void (*processor)(const char *, XRayBuffer)) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  bool ok = has_impl;
  const char *name = current_name;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  if (!ok || !processor)
    return XRAY_LOG_NOT_FLUSHING;
  XRayBuffer (*it)(XRayBuffer) =
      __atomic_load_n(&buffer_iterator, __ATOMIC_ACQUIRE);
  for (XRayBuffer b = it((XRayBuffer){NULL, 0}); b.Data; b = it(b))
    processor(name, b);
  return XRAY_LOG_FLUSHED;
}

/* ---- start-up from XRAY_OPTIONS ------------------------------------------ */

/* The exit policy (see the top of this file). A mode's finalize says
 * FINALIZED only for a session it has (running, or finalized and not yet
 * flushed), so an idle mode is left alone. */
static void report_unknown_mode(const char *mode);
static void flush_at_exit(void) { xr_registry_exit_policy(false); }

static bool policy_in_exit_call;

bool xr_registry_in_exit_call(void) {
  return __atomic_load_n(&policy_in_exit_call, __ATOMIC_RELAXED);
}

/* The longest the exit policy waits, in all, for other threads'
 * transitions: long enough for a flush of a large log, short enough that
 * an exit never seems to hang (docs/modes.md "At exit"). */
enum { XR_EXIT_WAIT_MS = 5000 };

/* Waits while another thread is inside a built-in mode's transition (never
 * for the caller's own), taking the time from *budget_ms; a transition the
 * process will cut short is said at every verbosity, once per mode (bit i
 * of *told). */
static void wait_for_other_threads(unsigned *budget_ms, unsigned *told) {
  static const char *const what[] = {"", "initialisation", "finalize",
                                     "flush"};
  for (size_t i = 0; i < XR_ARRAY_SIZE(builtins); i++) {
    struct xr_lifecycle *lc = builtins[i].lifecycle;
    bool mine;
    enum xr_transition t =
        lc ? xr_lifecycle_transition(lc, &mine) : XR_NO_TRANSITION;
    if (t == XR_NO_TRANSITION || mine || (*told & 1u << i))
      continue;
    xr_report(XR_INFO, "exit: waiting for another thread's %s of %s (at "
              "most %u ms)", what[t], builtins[i].name, *budget_ms);
    if (xr_lifecycle_wait_others(lc, budget_ms))
      continue;
    *told |= 1u << i;
    xr_report(XR_ERROR, "exit: another thread's %s of %s did not end within "
              "%d ms; the process ends now and cuts it short (its output may "
              "be incomplete)", what[t], builtins[i].name, XR_EXIT_WAIT_MS);
  }
}

void xr_registry_exit_policy(bool in_exit_call) {
  /* Once per process: after exit() has run it, a static libc's exit ends in
   * our _exit, and a fork child inherits the parent's mark. */
  static pid_t ran_in;
  pid_t me = getpid();
  if (__atomic_exchange_n(&ran_in, me, __ATOMIC_ACQ_REL) == me)
    return;
  __atomic_store_n(&policy_in_exit_call, in_exit_call, __ATOMIC_RELAXED);
  if (xr_budget_at_exit) /* no culling while the modes write */
    xr_budget_at_exit();
  unsigned budget_ms = XR_EXIT_WAIT_MS, told = 0;
  wait_for_other_threads(&budget_ms, &told);
  /* A host's first shared object may start the mode after the runtime's
   * constructors checked: an unknown name is said here then. */
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  if (pending_mode[0] && !pending_reported)
    report_unknown_mode(pending_mode);
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  for (size_t i = 0; i < XR_ARRAY_SIZE(flush_at_exit_modes); i++) {
    const struct XRayLogImpl *impl =
        __atomic_load_n(&flush_at_exit_modes[i], __ATOMIC_ACQUIRE);
    if (impl != NULL && impl->log_finalize() == XRAY_LOG_FINALIZED)
      impl->flush_log();
  }
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  bool run = env_started && has_impl && same_impl(&current_impl, &env_impl) &&
             current_state == XRAY_LOG_INITIALIZED;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  if (run && __xray_log_finalize() == XRAY_LOG_FINALIZED)
    __xray_log_flushLog();
  wait_for_other_threads(&budget_ms, &told);
}

void xr_registry_hook_exit(void) {
  static int registered;
  if (__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL) == 0)
    atexit(flush_at_exit);
}

void xr_registry_flush_at_exit(const struct XRayLogImpl *impl) {
  xr_registry_hook_exit();
  for (size_t i = 0; i < XR_ARRAY_SIZE(flush_at_exit_modes); i++) {
    const struct XRayLogImpl *none = NULL;
    if (__atomic_load_n(&flush_at_exit_modes[i], __ATOMIC_ACQUIRE) == impl ||
        __atomic_compare_exchange_n(&flush_at_exit_modes[i], &none, impl, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return;
  }
}

static void report_unknown_mode(const char *mode) {
  char known[256] = "";
  size_t o = 0;
  for (size_t i = 0; i < XR_ARRAY_SIZE(builtins); i++)
    if (builtins[i].impl && o < sizeof known)
      o += (size_t)snprintf(known + o, sizeof known - o, "%s%s",
                            o ? ", " : "", builtins[i].name);
  for (unsigned i = 0; i < user_mode_count && o < sizeof known; i++)
    o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", o ? ", " : "",
                          user_modes[i].name);
  xr_report(XR_ERROR, "XRAY_OPTIONS: unknown xray_mode '%s' (registered: "
            "%s); no mode started", mode, o ? known : "none");
}

void xr_registry_start_from_flags(void) {
  xr_registry_hook_exit(); /* first, so it runs after the program's own */
  const char *mode = xr_flags.xray_mode;
  if (!*mode) {
    if (xr_flags.xray_naive_log)
      mode = "xray-basic";
    else if (xr_flags.xray_fdr_log)
      mode = "xray-fdr";
    else
      return;
  }
  bool init_now = strcmp(mode, "xray-basic") == 0 || xr_flags.patch_premain;
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  /* Once per process tree: a fork child runs this again when another
   * thread of its parent was inside it at the fork (start.c); that thread
   * selected and initialised (or was initialising) the mode the child
   * inherits, which must not be initialised a second time. */
  static bool done;
  if (done) {
    xr_fork_lock_release(XR_LOCK_REGISTRY);
    return;
  }
  done = true;
  const char *name;
  struct XRayLogImpl impl;
  bool builtin;
  bool found = find_mode(mode, &name, &impl, &builtin);
  if (found) {
    select_locked(name, &impl, builtin);
    if (init_now) {
      env_started = true;
      env_impl = impl;
    }
  } else {
    /* Perhaps a user mode that registers from a constructor later. */
    snprintf(pending_mode, sizeof pending_mode, "%s", mode);
  }
  xr_fork_lock_release(XR_LOCK_REGISTRY);
  if (!found)
    return; /* reported by check_pending_mode() if it never registers */
  if (init_now) {
    XRayLogInitStatus s = __xray_log_init(0, 0, (void *)"", 0);
    if (s != XRAY_LOG_INITIALIZED)
      xr_report(XR_ERROR, "mode '%s' (xray_mode) failed to initialise "
                "(status %d)", mode, (int)s);
  }
  if (!xr_flags.patch_premain)
    hint_selected_without_patching(mode);
}

/* Runs with the runtime's constructors, which the linker places after the
 * program's own (the archive comes last on the link line): by now a user
 * mode named in xray_mode has registered, or never will. */
__attribute__((constructor)) static void check_pending_mode(void) {
  xr_fork_lock_take(XR_LOCK_REGISTRY);
  char mode[XR_MODE_NAME_MAX];
  memcpy(mode, pending_mode, sizeof mode);
  if (mode[0])
    report_unknown_mode(mode);
  pending_reported = mode[0] != 0;
  xr_fork_lock_release(XR_LOCK_REGISTRY);
}
