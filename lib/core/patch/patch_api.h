/* The patching API's door (patch_api.c): besides the public __xray_patch*
 * calls, what the files below the door need from it. */
#ifndef XR_PATCH_API_H
#define XR_PATCH_API_H

#include "core/base/common.h"

/* What the xray_patch / xray_skip options were matched against so far. */
struct xr_options_scope {
  size_t shared_objects; /* instrumented shared objects ever registered */
  size_t functions;      /* their functions and the executable's */
  uint32_t registrations; /* successful registrations so far (reloads too) */
  bool incomplete;        /* an object's names could not be read (no
                             memory): its matches are unknown, so no
                             pattern is said to match nothing */
};

/* Builds the xray_patch / xray_skip selection of every registered object
 * that has none yet (so each pattern's bit is final for these objects) and
 * fills *out (names_check.c; takes the registry lock). */
XR_HIDDEN void xr_patch_match_options(struct xr_options_scope *out);

/* How many of object id's functions have a sled patched now, read from the
 * sleds under the registry lock (0 when it is not loaded). */
XR_HIDDEN size_t xr_patch_count_patched(int32_t id);

/* ---- the overhead budget's door (lib/budget) ------------------------------ */
/* Each function's state, as xr_patch_function_states reports it. Pinned:
 * the user chose it by exact name or id (xray_patch= without wildcards,
 * __xray_patch_matching with a pattern without wildcards, which is what
 * `xrayctl patch NAME` sends, __xray_patch_function and the other calls by
 * id); any unpatching by the user clears it. Culled: the budget unpatched
 * it; any patching or unpatching of it by the user clears it (the user's
 * choice wins; the budget weighs it again in its next window). */
enum {
  XR_FN_PATCHED = 1, /* its entry sled is patched now */
  XR_FN_PINNED = 2,
  XR_FN_CULLED = 4,
  XR_FN_EXITS_PATCHED = 8, /* its exit and tail-exit sleds are patched now */
};

/* Fills out[0 .. count-1] with the XR_FN_* bits of object's functions 1 ..
 * count (count at most its function count). Returns how many were filled,
 * or -1 when the object is not loaded. Takes the registry lock. */
XR_HIDDEN long xr_patch_function_states(int32_t object, uint8_t *out, size_t count);

enum xr_cull_step {
  /* Unpatches the entry and log-args sleds of the selected functions that
   * are patched and not pinned, and marks them culled. Their exit and
   * tail-exit sleds stay patched, so the calls running now still end in
   * the logs. */
  XR_CULL_ENTRIES,
  /* Unpatches the exit and tail-exit sleds of the selected culled functions
   * (a later step, once the calls that were running have ended). */
  XR_CULL_EXITS,
  /* Patches the selected culled functions again, exits first, then entries
   * (so no call's entry is logged without its exit), and clears culled. */
  XR_UNCULL,
};

/* One culling step over object's functions whose selected[id - 1] is set
 * (one byte per function of the object). Returns an XRayPatchingStatus:
 * SUCCESS, ONGOING (a patching call of the user's runs: nothing done, try
 * again later), FAILED (the object went, or a page could not be written:
 * reported); *changed: how many functions the step changed. */
XR_HIDDEN int xr_patch_cull(int32_t object, const uint8_t *selected, enum xr_cull_step step,
                            size_t *changed);

/* ---- argument capture's door (lib/args) ------------------------------------ */
/* What a function's sleds call besides the usual trampolines: XR_ARGS_AT_ENTRY
 * sends its entry and log-args sleds to the port's argument entry trampoline,
 * XR_ARGS_AT_EXIT its exit sleds to the return-value trampoline
 * (core/dispatch/hot_tables.h, struct xr_arg_regs). Tail exits keep theirs. */
enum { XR_ARGS_AT_ENTRY = 1, XR_ARGS_AT_EXIT = 2 };

/* Sets object's want[id - 1] (XR_ARGS_AT_* bits of function id; count
 * bytes, at most its function count; NULL or 0: none), kept as a copy that
 * every later patching of the object follows. The sleds patched now whose
 * target changes are rewritten at once, live (docs/core.md, "Argument
 * trampolines"). Returns an XRayPatchingStatus: SUCCESS, ONGOING (a
 * patching call runs: nothing done, try again), FAILED (reported). Takes
 * the registry lock. */
XR_HIDDEN int xr_patch_set_args(int32_t object, const uint8_t *want, size_t count);

/* lib/args gives this once, before its first xr_patch_set_args: for an
 * object that registers, fill(o, want, count) sets want[0 .. count) (zeroed
 * first; count = its function count) to XR_ARGS_AT_* bits. Called with the
 * registry lock held, before the object is first patched, so it may use
 * the names room as the option selection does, and nothing that takes the
 * lock. */
struct xr_object;
typedef void (*xr_patch_args_fill_fn)(const struct xr_object *o, uint8_t *want, size_t count);
XR_HIDDEN void xr_patch_args_provider(xr_patch_args_fill_fn fill);

/* Registration's subscriber (init.c subscribes it): patch_premain for
 * objects registered later, their patch state freed when they go; the busy
 * flag in a fork child. */
struct xr_object_events;
XR_HIDDEN extern const struct xr_object_events xr_patch_api_events;

#endif
