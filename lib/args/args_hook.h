/* The hook the argument trampolines call (args_hook.c): the values of a
 * call with a plan, then the event to the running mode's sink
 * (core/modes/args_sink.h) or, with no sink, to the installed handler as
 * the usual trampoline would call it. */
#ifndef XR_ARGS_HOOK_H
#define XR_ARGS_HOOK_H

#include "core/base/common.h"

/* Points core's xr_args_hook (core/dispatch/hot_tables.h) at the hook;
 * idempotent. Called when the first SPEC is set, before any sled can
 * reach an argument trampoline; never undone (a thread may be on its way
 * to it; with no SPEC the hook finds no plan and passes the event on). */
XR_HIDDEN void xr_args_hook_install(void);

#endif
