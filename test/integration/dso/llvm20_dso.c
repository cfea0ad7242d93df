/* A shared object registered the way LLVM 20's xray-dso does it, with the
 * registration code written here (not libxray-dso.a): exactly the symbols
 * __xray_register_dso / __xray_deregister_dso with XRayTrampolines passed by
 * value, and trampolines that call through the executable's exported
 * handler variable (llvm20_tramp.S). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { char bytes[32]; } XRaySledEntry;
typedef struct { const XRaySledEntry *Begin; size_t Size; } XRayFunctionSledIndex;
typedef struct {
  void (*EntryTrampoline)(void);
  void (*ExitTrampoline)(void);
  void (*TailExitTrampoline)(void);
  void (*LogArgsTrampoline)(void);
} XRayTrampolines;

int32_t __xray_register_dso(const XRaySledEntry *, const XRaySledEntry *,
                            const XRayFunctionSledIndex *, const XRayFunctionSledIndex *,
                            XRayTrampolines);
bool __xray_deregister_dso(int32_t);

extern const XRaySledEntry __start_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const XRaySledEntry __stop_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const XRayFunctionSledIndex __start_xray_fn_idx[] __attribute__((weak, visibility("hidden")));
extern const XRayFunctionSledIndex __stop_xray_fn_idx[] __attribute__((weak, visibility("hidden")));
void llvm20_entry(void), llvm20_exit(void), llvm20_tail(void), llvm20_args(void);

static int32_t object_id = -1;
int llvm20_object_id(void) { return object_id; }

__attribute__((constructor(101))) static void init(void) {
  XRayTrampolines t = {llvm20_entry, llvm20_exit, llvm20_tail, llvm20_args};
  object_id = __xray_register_dso(__start_xray_instr_map, __stop_xray_instr_map,
                                  __start_xray_fn_idx, __stop_xray_fn_idx, t);
}
__attribute__((destructor(101))) static void fini(void) { __xray_deregister_dso(object_id); }

__attribute__((xray_always_instrument, noinline)) int llvm20_leaf(int x) { return x * 2; }
__attribute__((xray_always_instrument, noinline)) int llvm20_fn(int x) {
  return llvm20_leaf(x) + 1;
}
