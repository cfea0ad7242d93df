/* The tables the hot path reads, and nothing else: the handler slots (read
 * by the trampolines of lib/arch/<cpu>/), the dense handlers and each
 * object's dense id base (read by dense_ids_lean.c). Their writers (the
 * handler API in handlers.c, the registry in objects.c) and their readers
 * all depend on this file, which depends on none of them: so the
 * trampolines and the dense-id wrappers do not call back into the files
 * that install them. Declared in hot_tables.h. */
#include "core/dispatch/hot_tables.h"

void *volatile xr_handler_full[XR_SLOT_COUNT];
void *volatile xr_handler_lean[XR_SLOT_COUNT];
void *volatile xr_dense_handlers[2];
void *volatile xr_dense_handlers_no_sp[2];
uint32_t xr_objects_id_base[XR_MAX_OBJECTS];
xr_args_hook_fn volatile xr_args_hook;
