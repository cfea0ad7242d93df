/* Changing the SPEC in effect (args_set.c): the one door that the option,
 * the API (include/xray/xray_args.h) and the control socket's `args` verb
 * go through. Cold path; not async-signal-safe. */
#ifndef XR_ARGS_SET_H
#define XR_ARGS_SET_H

#include "core/base/common.h"

/* Makes text the SPEC in effect (NULL, or no item: none). The new tables
 * are published with one store, then every loaded object's sleds whose
 * target changes are retargeted (the patching door, core/patch/
 * patch_api.h), and the old tables freed once no thread reads them. The
 * first SPEC installs the hook and the provider that gives objects
 * registering later their plans. Returns an XRayArgsResult
 * (xray/xray_args.h): OK; INVALID (bad SPEC: the old one stays, err says
 * why); NOT_INITIALIZED (no instrumentation map); FAILED (the SPEC is in
 * effect, but some sleds could not be retargeted, or the hook could not
 * be set up: err says which). err: cap bytes (XR_ARGS_ERROR_MAX suffice),
 * "" after OK. */
XR_HIDDEN int xr_args_set(const char *text, char *err, size_t cap);

/* The SPEC in effect, normalised (args_spec.h), into buf; returns its
 * length (as snprintf). "" when none. */
XR_HIDDEN size_t xr_args_get(char *buf, size_t cap);

/* Calls each(ctx, text, matched) for every pattern of the SPEC in effect,
 * in order: the pattern normalised, and how many functions of the loaded
 * objects it matches now. Returns the number of patterns. */
XR_HIDDEN size_t xr_args_each_pattern(void (*each)(void *ctx, const char *text, size_t matched),
                                      void *ctx);

#endif
