/* Internal side of the mode registry (lib/core/modes/log_registry.c). */
#ifndef XR_LOG_REGISTRY_H
#define XR_LOG_REGISTRY_H

#include "core/base/common.h"
#include "xray/xray_log_interface.h"

/* Built-in modes, each defined by its mode glue file. Weak so that the core
 * links and runs without any of them. A built-in mode installs its own (lean)
 * handlers from log_init; selecting it installs nothing, so a mode that is
 * only selected costs nothing per event. */
#define XR_WEAK __attribute__((weak))
XR_HIDDEN extern const struct XRayLogImpl xr_basic_impl XR_WEAK;     /* lib/basic */
XR_HIDDEN extern const struct XRayLogImpl xr_fdr_impl XR_WEAK;       /* lib/fdr */
XR_HIDDEN extern const struct XRayLogImpl xr_profiling_impl XR_WEAK; /* lib/profiling */
/* Their lifecycles (core/modes/mode_lifecycle.h), which the exit policy waits on
 * while another thread is inside a transition. */
struct xr_lifecycle;
XR_HIDDEN extern struct xr_lifecycle xr_basic_lifecycle XR_WEAK;
XR_HIDDEN extern struct xr_lifecycle xr_fdr_lifecycle XR_WEAK;
XR_HIDDEN extern struct xr_lifecycle xr_profiling_lifecycle XR_WEAK;

/* Registers the exit hook (the one exit policy, log_registry.c), once:
 * init calls it first, so it runs after the program's own exit handlers
 * even when the mode starts later (a host's first shared object). */
XR_HIDDEN void xr_registry_hook_exit(void);

/* The exit policy itself, run by the exit hook and by _exit (exit_hook.c,
 * in_exit_call): once per process (a fork child runs its own). */
XR_HIDDEN void xr_registry_exit_policy(bool in_exit_call);

/* True while the exit policy runs from _exit, which a signal handler may
 * call: a flush then starts no thread (pthread_create allocates). */
XR_HIDDEN bool xr_registry_in_exit_call(void);

/* Called once at the first instrumentation map (lib/core/start/start.c), after
 * the flags are loaded: registers the exit hook, selects the mode named by xray_mode (or
 * the legacy xray_naive_log / xray_fdr_log) and initialises it when it is
 * xray-basic or patch_premain is set. */
XR_HIDDEN void xr_registry_start_from_flags(void);

/* Exit policy (a): a mode calls this from its log_init to be finalized and
 * flushed at exit however it was started (basic and profiling, as
 * compiler-rt's are). Idempotent; room for a few modes. */
XR_HIDDEN void xr_registry_flush_at_exit(const struct XRayLogImpl *impl);

/* The current mode's name (NULL: none, or removed by
 * __xray_remove_log_impl) and the state its last init,
 * finalize or flush reported, read together (the control socket's status). */
XR_HIDDEN const char *xr_registry_current(XRayLogInitStatus *state);

#endif
