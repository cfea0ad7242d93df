/* The tables the hot path reads (hot_tables.c owns them). */
#ifndef XR_HOT_TABLES_H
#define XR_HOT_TABLES_H

#include "arch/trampoline_numbers.h"
#include "core/base/common.h"
#include "core/dispatch/function_ids.h"

/* The handler slots, numbered XR_SLOT_* (arch/trampoline_numbers.h, read by
 * the trampolines too): arg0, arg1, custom event, typed event. Read by
 * assembly: keep the layout (two arrays of XR_SLOT_COUNT pointers).
 * Written by handlers.c only. */
XR_HIDDEN extern void *volatile xr_handler_full[XR_SLOT_COUNT];
XR_HIDDEN extern void *volatile xr_handler_lean[XR_SLOT_COUNT];

/* The dense handlers (arg0, arg1), NULL when none is installed, in their
 * two forms (handlers.h, "The sled's stack pointer"): the ones that take
 * the sled's stack pointer (the shared objects' dense paths that pass it),
 * and the ones that do not, which LLVM 20's objects reach through the
 * wrappers of dense_ids_lean.c. Written by handlers.c only. */
XR_HIDDEN extern void *volatile xr_dense_handlers[2];
XR_HIDDEN extern void *volatile xr_dense_handlers_no_sp[2];

/* Each object's dense id base (function_ids.h), indexed by object id
 * (XR_NO_ID_BASE when none): written by the registry
 * (core/objects/objects.c), read without its lock by dense_ids_lean.c. */
XR_HIDDEN extern uint32_t xr_objects_id_base[XR_MAX_OBJECTS];

#endif
