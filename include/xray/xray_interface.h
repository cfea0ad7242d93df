/* XRay runtime control: handlers, patching, function ids.
 *
 * Drop-in compatible with compiler-rt's <xray/xray_interface.h>: the same
 * names, enum values and signatures. Valid C11 and C++11 and later.
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_INTERFACE_H
#define XRAY_XRAY_INTERFACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of instrumentation points; also the sled kinds in xray_instr_map. */
enum XRayEntryType {
  ENTRY = 0,          /* function entry */
  EXIT = 1,           /* function return */
  TAIL = 2,           /* function leaves through a tail call */
  LOG_ARGS_ENTRY = 3, /* entry of an xray_log_args(1) function */
  CUSTOM_EVENT = 4,   /* __xray_customevent() */
  TYPED_EVENT = 5     /* __xray_typedevent() */
};
#ifndef __cplusplus
typedef enum XRayEntryType XRayEntryType;
#endif

/* Results of the patching functions. */
enum XRayPatchingStatus {
  NOT_INITIALIZED = 0, /* no instrumentation map: nothing to patch */
  SUCCESS = 1,
  ONGOING = 2, /* another thread is patching right now; try again */
  FAILED = 3   /* bad function id, or the pages could not be made writable */
};
#ifndef __cplusplus
typedef enum XRayPatchingStatus XRayPatchingStatus;
#endif

/* Registers. A handler is ordinary C: it may use every register the x86-64
 * System V ABI lets a function use. Around it the runtime keeps, for the
 * instrumented code, every register that can be live at that point (vector
 * widths: zmm when the OS enables AVX-512 state, else ymm when it enables
 * AVX, else xmm):
 *  - entry, tail exit, log-args entry: rax rcx rdx rsi rdi r8-r11, the six
 *    status flags (CF PF AF ZF SF OF), vector registers 0-7 (arguments);
 *  - exit: rax rdx, the six status flags, vector registers 0-1 (results),
 *    and the x87 stack, left in place (a long double result stays in st0 or
 *    st0-st1: the handler may use the other 6 x87 registers);
 *  - custom and typed events: rax rcx rdx rsi rdi r8-r11, rflags, the x87
 *    stack (the handler starts with it empty), and with AVX-512 zmm0-31,
 *    k0-7 and MXCSR, otherwise vector registers 0-15.
 * At entry and exit the other caller-saved state (the other vector
 * registers, k0-k7, the MXCSR and x87 status flags) cannot be live and is
 * not kept; callee-saved registers are the handler's to keep, as for any
 * call.
 *
 * Installs `entry` as the handler of function entry, exit and tail-exit
 * events (and of log-args entries when no arg1 handler is set: those arrive
 * with type LOG_ARGS_ENTRY). Called with the registers above kept, on the
 * thread that runs the instrumented function; it may be called spuriously
 * just after removal. The handler and what it calls must
 * not be instrumented (mark them __attribute__((xray_never_instrument))).
 * Returns 1 on success, 0 if the runtime is not initialised (no map). */
int __xray_set_handler(void (*entry)(int32_t, XRayEntryType));

/* Removes the entry/exit handler. Returns 1, or 0 if not initialised. */
int __xray_remove_handler(void);

/* Installs the handler of log-args entries (functions marked
 * xray_log_args(1)); it receives the first integer argument. Returns 1, or 0
 * if not initialised. */
int __xray_set_handler_arg1(void (*entry)(int32_t, XRayEntryType, uint64_t));

/* Removes the arg1 handler. Returns 1, or 0 if not initialised. */
int __xray_remove_handler_arg1(void);

/* Installs the handler of __xray_customevent(ptr, size). Returns 1, or 0 if
 * not initialised. */
int __xray_set_customevent_handler(void (*entry)(void *, size_t));

/* Removes the custom event handler. Returns 1, or 0 if not initialised. */
int __xray_remove_customevent_handler(void);

/* Installs the handler of __xray_typedevent(type, ptr, size). Returns 1, or 0
 * if not initialised. LLVM 14 to 19 declare the handler's first parameter
 * (the event type) as uint16_t, LLVM 20 and later as size_t; both kinds of
 * handler are accepted unchanged, from C (a _Generic macro, C11) and from
 * C++ (an overload below). The type arrives zero-extended to 64 bits, so a
 * size_t handler sees 0..65535. */
int __xray_set_typedevent_handler(void (*entry)(uint16_t, const void *,
                                                size_t));
#if !defined(__cplusplus) && defined(__STDC_VERSION__) &&                    \
    __STDC_VERSION__ >= 201112L
#define __xray_set_typedevent_handler(entry)                                   \
  __xray_set_typedevent_handler(_Generic((entry),                             \
      void (*)(size_t, const void *, size_t)                                   \
      : (void (*)(uint16_t, const void *, size_t))(void (*)(void))(entry),     \
      default: (entry)))
#endif

/* Removes the typed event handler. Returns 1, or 0 if not initialised. */
int __xray_remove_typedevent_handler(void);

/* Returns a stable id for an event type descriptor, keyed by the pointer
 * value: the same pointer always gets the same id, the first new pointer 0,
 * the next 1, and so on. Thread-safe. Returns 0xFFFF when 65535 types are
 * already registered. */
uint16_t __xray_register_event_type(const char *event_type);

/* Function ids: functions of the executable have ids 1..max; a function of a
 * registered shared object (see "Shared objects" below) has the packed id
 * (object << 24) | function, as in LLVM 20. Every FuncId below may be packed.
 *
 * Patches every sled of every loaded object so that instrumented functions
 * call the handlers. Returns SUCCESS; NOT_INITIALIZED without a map; ONGOING
 * while another thread patches; FAILED when page protection could not be
 * changed (the other objects are still patched). No page is left writable
 * and executable when it returns. */
XRayPatchingStatus __xray_patch(void);

/* Restores every sled to its nops. Same statuses as __xray_patch. */
XRayPatchingStatus __xray_unpatch(void);

/* Patches the sleds of one function (a packed id: function 1..max of its
 * object). Returns SUCCESS; FAILED for an id out of range, an object that is
 * not loaded, or a protection failure;
 * NOT_INITIALIZED without a map; ONGOING while another thread patches. */
XRayPatchingStatus __xray_patch_function(int32_t FuncId);

/* Unpatches the sleds of one function. Same statuses as
 * __xray_patch_function. */
XRayPatchingStatus __xray_unpatch_function(int32_t FuncId);

/* Extension: patches functions FirstId..LastId inclusive with one change of
 * page protection. Both ids name the same object (packed ids of a shared
 * object). FAILED if the range is empty or outside 1..max; otherwise as
 * __xray_patch_function. */
XRayPatchingStatus __xray_patch_function_range(int32_t FirstId,
                                               int32_t LastId);

/* Extension: unpatches functions FirstId..LastId inclusive. */
XRayPatchingStatus __xray_unpatch_function_range(int32_t FirstId,
                                                 int32_t LastId);

/* Returns the start address of function FuncId (packed), or 0 for an invalid
 * id, an unloaded object, or without a map. */
uintptr_t __xray_function_address(int32_t FuncId);

/* Returns the number of instrumented functions of the executable (the
 * largest valid id of object 0), or 0 without a map. */
size_t __xray_max_function_id(void);

/* ---- Shared objects (LLVM 20 API) ------------------------------------------
 * The executable is object 0. Each instrumented shared object linked with
 * libxray-dso.a (or LLVM 20's xray-dso runtime) registers itself when it is
 * loaded and gets the next object id, 1..255; it deregisters when unloaded.
 * A reloaded object (same file) gets its old id back. */

/* Patches / unpatches every function of object ObjId. SUCCESS; FAILED for an
 * invalid or unloaded object or a protection failure; NOT_INITIALIZED;
 * ONGOING. */
XRayPatchingStatus __xray_patch_object(int32_t ObjId);
XRayPatchingStatus __xray_unpatch_object(int32_t ObjId);

/* Function FuncId (not packed, 1..max) of object ObjId. Statuses as
 * __xray_patch_function. */
XRayPatchingStatus __xray_patch_function_in_object(int32_t FuncId, int32_t ObjId);
XRayPatchingStatus __xray_unpatch_function_in_object(int32_t FuncId, int32_t ObjId);

/* Start address of function FuncId of object ObjId; 0 when invalid or the
 * object is unloaded. */
uintptr_t __xray_function_address_in_object(int32_t FuncId, int32_t ObjId);

/* Number of instrumented functions of object ObjId; 0 for an invalid id. */
size_t __xray_max_function_id_in_object(int32_t ObjId);

/* Number of object ids handed out so far (loaded or not): valid ids are
 * 0..__xray_num_objects()-1. 0 without a map. */
size_t __xray_num_objects(void);

/* Packed id <-> (function, object). */
int32_t __xray_unpack_function_id(int32_t PackedId);
int32_t __xray_unpack_object_id(int32_t PackedId);
int32_t __xray_pack_id(int32_t FuncId, int32_t ObjId);

/* What __xray_symbolize knows about a function id. The strings belong to
 * the runtime and stay valid for the life of the process. */
typedef struct XRaySymbolInfo {
  int32_t function_id;
  /* Readable name: demangled when the program links a C++ runtime, else
   * the ELF symbol, else "fn<id>@0x<address>" (no symbol: stripped). */
  const char *function;
  /* The ELF symbol as in the file (mangled for C++), or NULL if none. */
  const char *symbol;
  /* Path of the object (executable or shared object) holding it. */
  const char *object;
  /* Run-time start address of the function. */
  uintptr_t address;
} XRaySymbolInfo;

/* Extension (the spelling of llvm-project's draft #132416): fills *info
 * for function FuncId (packed for a shared object's). Returns non-zero on success; 0 for an invalid id, a
 * NULL info, no map, no memory for the names, or when called from a signal
 * handler that interrupted this thread's own loading of the names. The
 * first call for an object reads its names (see xray/xray_names.h:
 * __xray_load_names); after that it is async-signal-safe and may be called
 * from a handler. */
int __xray_symbolize(int32_t FuncId, XRaySymbolInfo *info);

/* Finds the instrumentation map and reads XRAY_OPTIONS. Runs automatically
 * before main (from .preinit_array, or a constructor where that is missing);
 * calling it again, from any thread, does nothing. */
void __xray_init(void);

#ifdef __cplusplus
} /* extern "C" */

/* The LLVM 20 handler type (see __xray_set_typedevent_handler above). The
 * trampoline zero-extends the type, so both signatures are called alike.
 * (Cast through void (*)(void), which -Wcast-function-type exempts.) */
inline int __xray_set_typedevent_handler(void (*entry)(size_t, const void *,
                                                       size_t)) {
  return __xray_set_typedevent_handler(
      reinterpret_cast<void (*)(uint16_t, const void *, size_t)>(
          reinterpret_cast<void (*)(void)>(entry)));
}
/* Keeps __xray_set_typedevent_handler(nullptr) unambiguous. */
inline int __xray_set_typedevent_handler(decltype(nullptr)) {
  return __xray_set_typedevent_handler(
      static_cast<void (*)(uint16_t, const void *, size_t)>(nullptr));
}
#endif

#endif /* XRAY_XRAY_INTERFACE_H */
