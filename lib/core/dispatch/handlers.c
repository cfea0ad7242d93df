/* Handler slots and the public handler API of <xray/xray_interface.h>. */
#include "core/dispatch/handlers.h"

#include "core/base/runtime_state.h"
#include "core/dispatch/dense_ids_lean.h"
#include "core/dispatch/function_ids.h"
#include "core/dispatch/hot_tables.h"
#include "core/thread/fork_locks.h"
#include "xray/xray_interface.h"

#include <pthread.h>
#include <sys/mman.h>

/* xr_handler_full, xr_handler_lean and xr_dense_handlers are defined in
 * hot_tables.c, with the other tables the hot path reads. */

/* LLVM 20's per-object trampolines (compiler-rt's xray-dso, linked into a
 * shared object built with -fxray-shared) load these through the GOT and
 * call the handler in them directly. Each holds what our own paths would
 * call (the lean handler if any, else the user's), so such objects trace
 * into the same mode. Their trampolines save xmm0-7 and the general
 * registers, which both kinds of handler are content with. */
XR_API void *volatile xr_llvm_patched_function __asm__("_ZN6__xray19XRayPatchedFunctionE");
XR_API void *volatile xr_llvm_arg_logger __asm__("_ZN6__xray13XRayArgLoggerE");
XR_API void *volatile xr_llvm_custom_event __asm__("_ZN6__xray22XRayPatchedCustomEventE");
XR_API void *volatile xr_llvm_typed_event __asm__("_ZN6__xray21XRayPatchedTypedEventE");

/* Shared objects' copies of the dispatch of the call kinds
 * (xr_handler_dso_dispatch), with their dense paths, both indexed as
 * xr_trampoline_dispatch; guarded by XR_LOCK_INSTALL. */
struct dso_copy {
  void *volatile *slots;
  void *volatile *dense_handlers; /* NULL: the object has no dense paths */
  bool dense_sp;                  /* its dense paths pass the stack pointer */
  void *dense_paths[XR_T_CALL_COUNT];
};
static struct dso_copy dso_copies[XR_MAX_OBJECTS];
/* Which lean handlers take dense ids (XR_HANDLER_DENSE), and so which
 * trampolines currently lead to a dense handler (refresh_dispatch). */
static bool lean_dense[XR_SLOT_COUNT];
static bool dispatch_dense[XR_T_COUNT];
/* Each lean handler's twin that takes no stack pointer (handlers.h). */
static void *lean_no_sp[XR_SLOT_COUNT];
/* The lean handler install() last put in each slot, which a stand-in
 * (xr_handler_swap_lean) may replace in the slot for a while. */
static void *installed_lean[XR_SLOT_COUNT];

/* Ordering: the dense handler copy first, then the slots. The copy only
 * ever holds dense handlers (or NULL), so a thread inside a dense path
 * never calls a handler that wants packed ids, whatever it finds. */
static void copy_dispatch(const struct dso_copy *c) {
  if (c->dense_handlers != NULL)
    for (int k = 0; k < 2; k++)
      __atomic_store_n(&c->dense_handlers[k],
                       c->dense_sp ? xr_dense_handlers[k] : xr_dense_handlers_no_sp[k],
                       __ATOMIC_RELEASE);
  for (int t = 0; t < XR_T_CALL_COUNT; t++) {
    void *path = xr_trampoline_dispatch[t];
    if (dispatch_dense[t]) /* no dense path: not traced while it lasts */
      path = c->dense_handlers != NULL ? c->dense_paths[t] : xr_trampoline_paths[t][XR_PATH_NONE];
    __atomic_store_n(&c->slots[t], path, __ATOMIC_RELEASE);
  }
}

void xr_handler_dso_dispatch(int32_t id, void *volatile *slots,
                             const struct xr_dso_dense *dense, bool dense_sp) {
  if (id <= 0 || id >= XR_MAX_OBJECTS)
    return;
  xr_vector_state_init(); /* the full paths may be chosen below */
  xr_fork_lock_take(XR_LOCK_INSTALL);
  struct dso_copy *c = &dso_copies[id];
  *c = (struct dso_copy){slots, NULL, false, {NULL}};
  if (slots != NULL && dense != NULL) {
    c->dense_handlers = dense->handlers;
    c->dense_sp = dense_sp;
    for (int t = 0; t < XR_T_CALL_COUNT; t++)
      c->dense_paths[t] = (void *)dense->paths[t];
  }
  if (slots != NULL)
    copy_dispatch(c);
  xr_fork_lock_release(XR_LOCK_INSTALL);
}

/* What a caller that passes no stack pointer calls for slot. */
static void *handler_no_sp_of(unsigned slot) {
  return xr_handler_lean[slot] ? lean_no_sp[slot] : xr_handler_full[slot];
}

static unsigned path_of(unsigned slot) {
  return xr_handler_lean[slot]   ? XR_PATH_LEAN
         : xr_handler_full[slot] ? XR_PATH_FULL
                                 : XR_PATH_NONE;
}

/* Points every trampoline at the path its slots call for. The arg-logging
 * trampoline prefers an arg1 handler, then the arg0 one (lean before full
 * for each), as its paths do. */
static void refresh_dispatch(void) {
  unsigned arg0 = path_of(XR_SLOT_ARG0), arg1 = path_of(XR_SLOT_ARG1);
  const unsigned want[XR_T_COUNT] = {
      [XR_T_ENTRY] = arg0, [XR_T_EXIT] = arg0, [XR_T_TAIL] = arg0,
      [XR_T_ARG] = arg1 != XR_PATH_NONE ? arg1 : arg0,
      [XR_T_CUSTOM] = path_of(XR_SLOT_CUSTOM),
      [XR_T_TYPED] = path_of(XR_SLOT_TYPED)};
  /* The handler each lean path would call first takes dense ids. */
  bool arg1_first = xr_handler_lean[XR_SLOT_ARG1] != NULL;
  for (int k = 0; k < 2; k++) {
    __atomic_store_n(&xr_dense_handlers[k], lean_dense[k] ? xr_handler_lean[k] : NULL,
                     __ATOMIC_RELEASE);
    __atomic_store_n(&xr_dense_handlers_no_sp[k], lean_dense[k] ? lean_no_sp[k] : NULL,
                     __ATOMIC_RELEASE);
  }
  dispatch_dense[XR_T_ENTRY] = dispatch_dense[XR_T_EXIT] = dispatch_dense[XR_T_TAIL] =
      arg0 == XR_PATH_LEAN && lean_dense[XR_SLOT_ARG0];
  dispatch_dense[XR_T_ARG] =
      want[XR_T_ARG] == XR_PATH_LEAN && lean_dense[arg1_first ? XR_SLOT_ARG1 : XR_SLOT_ARG0];
  for (int t = 0; t < XR_T_COUNT; t++) {
    unsigned path = want[t];
    if (path == XR_PATH_FULL)
      path = xr_arch_full_path();
    __atomic_store_n(&xr_trampoline_dispatch[t], xr_trampoline_paths[t][path],
                     __ATOMIC_RELEASE);
  }
  for (int i = 1; i < XR_MAX_OBJECTS; i++)
    if (dso_copies[i].slots != NULL)
      copy_dispatch(&dso_copies[i]);
  /* LLVM 20's objects call these with packed ids: a dense handler gets
   * them through a wrapper that adds the object's id base. */
  __atomic_store_n(&xr_llvm_patched_function,
                   xr_dense_handlers[0] ? (void *)xr_dense_wrap_arg0 : handler_no_sp_of(XR_SLOT_ARG0),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&xr_llvm_arg_logger,
                   xr_dense_handlers[1] ? (void *)xr_dense_wrap_arg1 : handler_no_sp_of(XR_SLOT_ARG1),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&xr_llvm_custom_event, handler_no_sp_of(XR_SLOT_CUSTOM), __ATOMIC_RELEASE);
  __atomic_store_n(&xr_llvm_typed_event, handler_no_sp_of(XR_SLOT_TYPED), __ATOMIC_RELEASE);
}

/* Ordering: the new slot is stored before the other one is cleared, so a
 * switch between a lean and a full handler never drops events (for an
 * instant both are set; the paths then prefer the lean one), and the slots
 * before the dispatch pointers: a path re-reads its slot, so a dispatch that
 * lags a removal only costs a wasted save. Release stores publish the
 * handler's state before its pointer. The lock keeps concurrent installs
 * from leaving a stale dispatch behind (cold path). */
static void install_locked(unsigned slot, void *fn, void *fn_no_sp, unsigned flags) {
  void *volatile *mine = (flags & XR_HANDLER_LEAN) ? xr_handler_lean : xr_handler_full;
  void *volatile *other = (flags & XR_HANDLER_LEAN) ? xr_handler_full : xr_handler_lean;
  if (flags & XR_HANDLER_LEAN) {
    lean_dense[slot] = (flags & XR_HANDLER_DENSE) && slot <= XR_SLOT_ARG1;
    lean_no_sp[slot] = fn_no_sp;
  }
  installed_lean[slot] = (flags & XR_HANDLER_LEAN) ? fn : NULL;
  __atomic_store_n(&mine[slot], fn, __ATOMIC_RELEASE);
  __atomic_store_n(&other[slot], NULL, __ATOMIC_RELEASE);
  refresh_dispatch();
}

static void install(unsigned slot, void *fn, void *fn_no_sp, unsigned flags) {
  if (slot >= XR_SLOT_COUNT)
    return;
  xr_vector_state_init(); /* before any full path can run */
  xr_fork_lock_take(XR_LOCK_INSTALL);
  install_locked(slot, fn, fn_no_sp, flags);
  xr_fork_lock_release(XR_LOCK_INSTALL);
}

void xr_handler_install(unsigned slot, void *fn, unsigned flags) {
  install(slot, fn, fn, flags);
}

void xr_handler_install_lean(unsigned slot, void *fn, void *fn_no_sp, unsigned flags) {
  install(slot, fn, fn_no_sp, flags | XR_HANDLER_LEAN);
}

static unsigned lean_flags(unsigned slot) {
  return XR_HANDLER_LEAN | (lean_dense[slot] ? XR_HANDLER_DENSE : 0);
}

void xr_handler_lean_now(unsigned slot, struct xr_lean_handler *out) {
  *out = (struct xr_lean_handler){NULL, NULL, 0};
  if (slot >= XR_SLOT_COUNT)
    return;
  xr_fork_lock_take(XR_LOCK_INSTALL);
  out->fn = xr_handler_lean[slot];
  if (out->fn != NULL) {
    out->fn_no_sp = lean_no_sp[slot];
    out->flags = lean_flags(slot);
  }
  xr_fork_lock_release(XR_LOCK_INSTALL);
}

/* As install() with the slot's flags unchanged: the twin first, then the
 * slot, then every copy (refresh_dispatch). The dense bit stays, so a dense
 * path never reaches a handler that wants packed ids. `installed_lean`
 * keeps naming what install() put there: the stand-in answers for it
 * (xr_handler_remove_lean_if). */
bool xr_handler_swap_lean(unsigned slot, const struct xr_lean_handler *from,
                          const struct xr_lean_handler *to) {
  if (slot > XR_SLOT_ARG1 || from->fn == NULL || to->fn == NULL || to->fn_no_sp == NULL)
    return false;
  xr_fork_lock_take(XR_LOCK_INSTALL);
  bool same = xr_handler_lean[slot] == from->fn && lean_no_sp[slot] == from->fn_no_sp &&
              lean_flags(slot) == (from->flags | XR_HANDLER_LEAN);
  if (same) {
    lean_no_sp[slot] = to->fn_no_sp;
    __atomic_store_n(&xr_handler_lean[slot], to->fn, __ATOMIC_RELEASE);
    refresh_dispatch();
  }
  xr_fork_lock_release(XR_LOCK_INSTALL);
  return same;
}

void xr_handler_remove_lean_if(unsigned slot, void *fn) {
  if (slot >= XR_SLOT_COUNT || fn == NULL)
    return;
  xr_fork_lock_take(XR_LOCK_INSTALL);
  if (xr_handler_lean[slot] != NULL && installed_lean[slot] == fn)
    install_locked(slot, NULL, NULL, XR_HANDLER_LEAN);
  xr_fork_lock_release(XR_LOCK_INSTALL);
}

/* Public API: like compiler-rt, refuse (0) until __xray_init found a map. */
static int install_user(unsigned slot, void *fn) {
  if (!xr_runtime_initialized())
    return 0;
  xr_handler_install(slot, fn, 0);
  return 1;
}

XR_API int __xray_set_handler(void (*entry)(int32_t, XRayEntryType)) {
  return install_user(XR_SLOT_ARG0, (void *)entry);
}
XR_API int __xray_remove_handler(void) { return install_user(XR_SLOT_ARG0, NULL); }

XR_API int __xray_set_handler_arg1(void (*entry)(int32_t, XRayEntryType, uint64_t)) {
  return install_user(XR_SLOT_ARG1, (void *)entry);
}
XR_API int __xray_remove_handler_arg1(void) { return install_user(XR_SLOT_ARG1, NULL); }

XR_API int __xray_set_customevent_handler(void (*entry)(void *, size_t)) {
  return install_user(XR_SLOT_CUSTOM, (void *)entry);
}
XR_API int __xray_remove_customevent_handler(void) {
  return install_user(XR_SLOT_CUSTOM, NULL);
}

/* Parenthesised: the header makes the name a _Generic macro in C. */
XR_API int (__xray_set_typedevent_handler)(void (*entry)(uint16_t, const void *, size_t)) {
  return install_user(XR_SLOT_TYPED, (void *)entry);
}
XR_API int __xray_remove_typedevent_handler(void) {
  return install_user(XR_SLOT_TYPED, NULL);
}

/* Event types: id per descriptor pointer, in order of first registration.
 * An open-addressing table (twice the id space, so probes stay short) in
 * memory mapped at the first registration, under a mutex: registration is
 * cold and must not malloc. */
#define XR_EVENT_TYPE_LIMIT 0xFFFFu /* ids 0..0xFFFE; 0xFFFF means "full" */
#define XR_EVENT_TABLE_SIZE (1u << 17)

struct event_type_entry {
  const char *key;
  uint32_t id_plus_one; /* 0: empty */
};

static struct event_type_entry *event_type_table;
static uint32_t event_type_count;
static uint32_t null_key_id_plus_one; /* NULL is a key like any other */

static uint32_t hash_pointer(const char *p) {
  uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 47); /* 17 bits */
}

static uint16_t register_locked(const char *key) {
  uint32_t *id_slot = &null_key_id_plus_one;
  if (key) {
    if (!event_type_table) {
      void *m = mmap(NULL, XR_EVENT_TABLE_SIZE * sizeof(struct event_type_entry),
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        return (uint16_t)XR_EVENT_TYPE_LIMIT;
      event_type_table = m;
    }
    uint32_t i = hash_pointer(key);
    while (event_type_table[i].id_plus_one && event_type_table[i].key != key)
      i = (i + 1) & (XR_EVENT_TABLE_SIZE - 1);
    event_type_table[i].key = key;
    id_slot = &event_type_table[i].id_plus_one;
  }
  if (*id_slot)
    return (uint16_t)(*id_slot - 1);
  if (event_type_count >= XR_EVENT_TYPE_LIMIT)
    return (uint16_t)XR_EVENT_TYPE_LIMIT;
  *id_slot = ++event_type_count;
  return (uint16_t)(*id_slot - 1);
}

XR_API uint16_t __xray_register_event_type(const char *event_type) {
  xr_fork_lock_take(XR_LOCK_EVENT_TYPES);
  uint16_t id = register_locked(event_type);
  xr_fork_lock_release(XR_LOCK_EVENT_TYPES);
  return id;
}
