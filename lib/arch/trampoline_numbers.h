/* The numbers core and the trampolines share, written once: C includes
 * this through arch/arch.h, each port's trampoline_macros_<cpu>.inc
 * through the C preprocessor (.S files are preprocessed), so both read
 * the same #defines. The assembler checks at the end tie the tables the
 * trampolines lay out to them; core/patch/patching.c ties XR_T_* to enum
 * XRayEntryType with a _Static_assert. */
#ifndef XR_TRAMPOLINE_NUMBERS_H
#define XR_TRAMPOLINE_NUMBERS_H

/* Trampolines, numbered as the sled kinds they serve (enum XRayEntryType):
 * trampoline t is what a sled of kind t calls, and it passes t to the
 * handler as the entry type. They index xr_trampoline_dispatch and
 * xr_trampoline_paths (arch.h), an object's trampoline table (the call
 * kinds, objects.h) and a shared object's dispatch copy (dso_abi.h: our
 * ABI with libxray-dso.a, so the call kinds are never renumbered). */
#define XR_T_ENTRY 0
#define XR_T_EXIT 1
#define XR_T_TAIL 2
#define XR_T_ARG 3 /* LOG_ARGS_ENTRY: __xray_ArgLoggerEntry */
#define XR_T_CUSTOM 4
#define XR_T_TYPED 5
#define XR_T_CALL_COUNT 4 /* entry..arg: the kinds whose sleds call (or jump) */
#define XR_T_COUNT 6

/* Handler slots (core/dispatch/handlers.h): xr_handler_full and xr_handler_lean are
 * arrays of XR_SLOT_COUNT pointers, which the trampolines read at byte
 * 8 * slot. A shared object's dense handler copy (dso_abi.h) holds the
 * first two, at the same places. */
#define XR_SLOT_ARG0 0   /* void (*)(int32_t id, enum XRayEntryType) */
#define XR_SLOT_ARG1 1   /* void (*)(int32_t id, enum XRayEntryType, uint64_t) */
#define XR_SLOT_CUSTOM 2 /* void (*)(void *, size_t) */
#define XR_SLOT_TYPED 3  /* void (*)(uint16_t, const void *, size_t) */
#define XR_SLOT_COUNT 4

/* The paths of a trampoline, its row of xr_trampoline_paths: these three,
 * then the port's variants of the full path (XR_PATH_FULL_* and
 * XR_ARCH_PATH_COUNT in arch_<cpu>.h). */
#define XR_PATH_NONE 0
#define XR_PATH_LEAN 1
#define XR_PATH_FULL 2

#ifdef __ASSEMBLER__
/* Emits `.quad value` as entry `index` of `table`, and stops the assembly
 * unless it lands at byte 8 * index: a table written in another order
 * than the numbers above does not build. */
.macro XR_TABLE_ENTRY table, index, value
        .if . - \table != 8 * (\index)
        .error "\table: an entry out of place (arch/trampoline_numbers.h)"
        .endif
        .quad \value
.endm
/* Stops the assembly unless `table` ended with `count` entries. */
.macro XR_TABLE_END table, count
        .if . - \table != 8 * (\count)
        .error "\table: not as many entries as arch/trampoline_numbers.h says"
        .endif
        .size \table, .-\table
.endm
/* xr_trampoline_dispatch: the current path of each trampoline, written
 * only by xr_handler_install (core/dispatch/handlers.c), under its lock. Each
 * trampoline starts on its no-handler path, which the port names
 * .L__xray_FunctionEntry_none, .Lexit_none, .L__xray_FunctionTailExit_none,
 * .Larg_none, .L__xray_CustomEvent_none and .L__xray_TypedEvent_none. */
.macro XR_DISPATCH_TABLE
        .data
        .p2align 6
        .globl xr_trampoline_dispatch
        .hidden xr_trampoline_dispatch
        .type xr_trampoline_dispatch,@object
xr_trampoline_dispatch:
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_ENTRY, .L__xray_FunctionEntry_none
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_EXIT, .Lexit_none
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_TAIL, .L__xray_FunctionTailExit_none
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_ARG, .Larg_none
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_CUSTOM, .L__xray_CustomEvent_none
        XR_TABLE_ENTRY xr_trampoline_dispatch, XR_T_TYPED, .L__xray_TypedEvent_none
        XR_TABLE_END xr_trampoline_dispatch, XR_T_COUNT
.endm
#endif

#endif
