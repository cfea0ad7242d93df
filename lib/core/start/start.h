/* Starting what XRAY_OPTIONS asks for at the first instrumentation map, and
 * saying so when a trace it asks for cannot happen (lib/core/start/start.c). */
#ifndef XR_START_H
#define XR_START_H

#include "core/base/common.h"

/* The first instrumentation map is here (the executable's at init, or in a
 * host built without -fxray-instrument the first shared object's, from its
 * registration): selects, and initialises when asked, the mode XRAY_OPTIONS
 * names, and arranges the exit hint for a mode that is never patched. Once
 * per process; a call while the first runs waits for it. Never with the
 * object registry's lock held (a mode's init takes it). */
XR_HIDDEN void xr_start_tracing(void);
/* Registration's subscriber (init.c subscribes it): in a host without a
 * map the first shared object starts the trace, before it is patched. */
struct xr_object_events;
XR_HIDDEN extern const struct xr_object_events xr_start_events;

/* Init found no map in the executable: prints compiler-rt's
 * "instrumentation map missing" line and ours at verbosity 1, and, when
 * XRAY_OPTIONS asked for a trace and no shared object started one by exit,
 * the hint at exit. */
XR_HIDDEN void xr_start_wait_for_objects(void);

/* Init found a map that is not valid: nothing will ever be traced; the hint
 * now when XRAY_OPTIONS asked for a trace. */
XR_HIDDEN void xr_start_never(void);

#endif
