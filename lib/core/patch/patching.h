/* Patching sleds into calls to the trampolines and back. */
#ifndef XR_PATCHING_H
#define XR_PATCHING_H

#include "core/base/common.h"
#include "arch/arch.h"
#include "core/objects/objects.h"
#include "core/objects/sled_map.h"

/* The port's sled encoder (lib/arch/<cpu>/patch_*.c): the only place that
 * knows the sled encodings.
 * Writes one sled (memory must be writable). Returns 0, or -1 when the
 * trampoline is out of rel32 range, the kind is unknown or the sled is at an
 * odd address (nothing written then). Ordering: body first, first two bytes
 * last with one atomic 16-bit store. */
XR_HIDDEN int xr_patch_sled(const struct xr_sled *sled, int32_t function_id,
                            const uintptr_t trampolines[XR_T_CALL_COUNT], bool enable);

/* Enabling a call sled whose body may call another trampoline than
 * trampolines[kind], which a thread stopped inside it would still call
 * (argument capture retargets sleds), in two steps over a batch of sleds
 * (the port's head comment says why each is safe): xr_patch_sled_retarget
 * returns 0 (done), 1 (the caller calls xr_patch_sled_retarget_finish,
 * which returns 0, after xr_quiesce_fence) or -1 as xr_patch_sled. Other
 * kinds: as xr_patch_sled. */
XR_HIDDEN int xr_patch_sled_retarget(const struct xr_sled *sled, int32_t function_id,
                                     const uintptr_t trampolines[XR_T_CALL_COUNT]);
XR_HIDDEN int xr_patch_sled_retarget_finish(const struct xr_sled *sled, int32_t function_id,
                                             const uintptr_t trampolines[XR_T_CALL_COUNT]);

/* Whether an exit sled is followed by a return, not by a tail call's
 * branch (AArch64's tail calls have exit sleds too, where no result is in
 * the result registers: their sleds keep the usual trampoline). */
XR_HIDDEN bool xr_sled_before_return(const struct xr_sled *sled);

/* Whether the sled's code is in its enabled form now (the port reads its
 * first bytes). The sled must be mapped; reads race with nothing only under
 * the lock its writers hold. */
XR_HIDDEN bool xr_sled_enabled(const struct xr_sled *sled);

/* Which sleds a rewrite touches: one bit per sled kind (XR_T_*, the kinds
 * of enum XRayEntryType). The overhead budget unpatches entries before
 * exits and patches exits before entries; event sleds are never its. */
enum {
  XR_SLEDS_ENTRY = 1u << XR_T_ENTRY | 1u << XR_T_ARG, /* entry, log-args entry */
  XR_SLEDS_EXIT = 1u << XR_T_EXIT | 1u << XR_T_TAIL,  /* exit, tail exit */
  XR_SLEDS_ALL = (1u << XR_T_COUNT) - 1,
};

/* patching.c: rewrites the sleds of the kinds in `kinds` (XR_SLEDS_*) of
 * functions first_id..last_id of object o (ids local to o; the sleds get
 * packed ids), or only those with selected[id - 1] set when selected is
 * not NULL. Call with the registry lock held (patch_api.c does). Returns an
 * XRayPatchingStatus: SUCCESS or FAILED (reported). */
XR_HIDDEN int xr_patch_object_functions(struct xr_object *o, int32_t first_id,
                                        int32_t last_id, const uint8_t *selected,
                                        unsigned kinds, bool enable);
/* xr_patch_set_args's work (patch_api.h; XR_WANT_* are XR_ARGS_AT_*'s
 * values), lock held: a copy of the bits that every later rewrite of o
 * follows (args_targets.h: where the argument trampolines are for o), and
 * the enabled sleds whose trampoline changes retargeted now. SUCCESS or
 * FAILED (reported). */
enum { XR_WANT_ENTRY = 1, XR_WANT_EXIT = 2 };
XR_HIDDEN int xr_patch_object_args(struct xr_object *o, const uint8_t *want, size_t count);

/* Frees what patching cached for o (its object is going away; patch_api.c
 * calls it as registration's subscriber). */
XR_HIDDEN void xr_patch_state_free(struct xr_object *o);

/* How many of o's functions have their sleds patched now (lock held). */
XR_HIDDEN size_t xr_patched_functions(const struct xr_object *o);

/* Function id's (1..function count of o) sleds now, read from the sleds
 * (lock held, o loaded), as kind bits (1 << XR_T_*): kinds of which some
 * sled is patched, and kinds of which some sled is not. */
struct xr_sled_states {
  unsigned patched, unpatched;
};
XR_HIDDEN struct xr_sled_states xr_function_sled_states(const struct xr_object *o, int32_t id);

/* True once a patching call asked to enable sleds (whether or not every
 * sled could be written): init.c's exit hint reads it. */
XR_HIDDEN bool xr_patching_ever_enabled(void);

#endif
