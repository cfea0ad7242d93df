/* What a CPU port provides: everything the runtime knows about one
 * instruction set lives under lib/arch/<cpu>/, behind this header, so that
 * lib/core/ and the modes hold no inline assembly, no CPU feature query, no
 * opcode and no register name (test/integration/house/arch_corner.py
 * looks for them). Dependencies run one way: modes -> core -> arch; a port uses
 * only libc and core/base/common.h's compiler helpers.
 *
 * A port provides:
 *   - trampolines (<cpu>/trampoline_*.S): __xray_FunctionEntry and friends,
 *     their none / lean / full paths (xr_trampoline_paths) and the dispatch
 *     table core points at them (xr_trampoline_dispatch), and
 *     xr_call_preserving_vectors;
 *   - the vector state those paths save (xr_vector_state_init) and which
 *     full path suits this CPU (xr_arch_full_path);
 *   - the argument trampolines (<cpu>/args_trampoline_*.S) and the jump
 *     stubs that reach them from afar;
 *   - sled encoding: xr_patch_sled and its retargeting steps (<cpu>/
 *     patch_*.c, declared in core/patch/patching.h) and the sizes of sleds;
 *   - clock reads: a constant-rate tick counter, the counter with the CPU id,
 *     the CPU id alone, what the CPU says about them (xr_arch_clock_probe),
 *     and a 128-by-64-bit division for tick conversions;
 *   - pause (spin-wait hint), a thread-pointer-relative 32-bit load (TLS
 *     base), the owner-only test-and-set of a word's top bit, and the page
 *     size;
 *   - the overhead budget's probe of an event's cost (<cpu>/budget_probe_*.S). */
#ifndef XR_ARCH_H
#define XR_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/trampoline_numbers.h"

/* The inline part of the port: xr_arch_ticks(), xr_arch_ticks_cpu(&cpu),
 * xr_arch_cpu_insn(), xr_arch_udiv128(hi, lo, d), xr_arch_pause(),
 * xr_arch_tls_load_s32(offset), xr_arch_test_and_set_top_bit(&word),
 * XR_PAGE_SIZE, the sled sizes, the full-path variants and
 * XR_ARCH_PATH_COUNT. */
#if defined(__x86_64__)
#include "arch/x86_64/arch_x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64/arch_aarch64.h"
#else
#error "no port of the XRay runtime to this CPU (lib/arch/arch.h lists what one provides)"
#endif

/* ---- trampolines ------------------------------------------------------ */
/* What enabled sleds call. Exported (compiler-rt's names; shared objects'
 * trampolines forward to them), so declared before the hidden block: a
 * hidden declaration would make the linked symbol hidden. */
extern void __xray_FunctionEntry(void);
extern void __xray_FunctionExit(void);
extern void __xray_FunctionTailExit(void);
extern void __xray_ArgLoggerEntry(void);

#pragma GCC visibility push(hidden)

/* Each trampoline starts with an indirect jump through its entry of
 * xr_trampoline_dispatch to one of its paths in xr_trampoline_paths (no
 * handler / lean / full), so that the empty path touches no register and no
 * flag. xr_handler_install (core/dispatch/handlers.c) keeps the pointers in step with
 * the handler slots, which the paths read (core/dispatch/handlers.h). Both tables
 * are indexed by XR_T_* and XR_PATH_* (arch/trampoline_numbers.h, which the
 * trampolines read too). A port may have variants of the full path for
 * what the CPU offers (xr_arch_full_path picks one), so each trampoline has
 * XR_ARCH_PATH_COUNT paths, NONE, LEAN and FULL first. */
extern void *volatile xr_trampoline_dispatch[XR_T_COUNT];
extern void *const xr_trampoline_paths[XR_T_COUNT][XR_ARCH_PATH_COUNT];

/* Calls fn(arg) with every vector register and the floating-point control
 * state saved and restored around it. Lean handlers use it for slow paths
 * that call libc (write, mmap, snprintf) so they stay lean. */
void xr_call_preserving_vectors(void (*fn)(void *), void *arg);

/* The overhead budget's calibration (lib/budget): xr_arch_probe_events(n)
 * makes n calls the way a patched entry sled does (the id in the sled's
 * register, a call) into a private copy of the lean entry path (<cpu>/
 * budget_probe_<cpu>.S, the same macros as the trampolines, an indirect
 * jump first) whose handler slot holds a handler that returns at once;
 * xr_arch_probe_bare(n) runs the same loop without the calls. The
 * difference of their times over n is what the sled, the trampoline and
 * the handler's call and return add to one event on this CPU. */
void xr_arch_probe_events(uint64_t n);
void xr_arch_probe_bare(uint64_t n);

/* Decides once (idempotent, thread-safe) which vector state the full paths
 * and xr_call_preserving_vectors save; call before any handler can run. */
void xr_vector_state_init(void);
/* The index in xr_trampoline_paths of the full path that suits this CPU:
 * XR_PATH_FULL or one of the port's variants. Valid after
 * xr_vector_state_init. */
unsigned xr_arch_full_path(void);

/* ---- argument trampolines ---------------------------------------------- */
/* What the sleds of a function with argument capture call instead of the
 * usual trampolines (<cpu>/args_trampoline_<cpu>.S; core/dispatch/
 * hot_tables.h says what they keep and what they pass to xr_args_hook):
 * the entry one serves entry and log-args sleds, the exit one exit sleds.
 * Each starts with an indirect jump through xr_args_dispatch[t] (t =
 * XR_T_ENTRY, XR_T_EXIT) to one of its copies in xr_args_paths[t], laid
 * out by the numbers of the usual full paths (XR_PATH_FULL and the port's
 * variants; NONE and LEAN hold the plain full copy): core/patch points it
 * at xr_args_paths[t][xr_arch_full_path()] before it sends a sled there. */
void xr_args_entry_trampoline(void);
void xr_args_exit_trampoline(void);
extern void *volatile xr_args_dispatch[2];
extern void *const xr_args_paths[2][XR_ARCH_PATH_COUNT];

/* Writes at `at` (writable, XR_ARCH_JUMP_STUB_BYTES) an absolute jump to
 * `target` that changes no register a sled leaves live (x86-64: none;
 * AArch64: only x16), and makes it visible to instruction fetch: the near
 * stubs through which a shared object's sleds, whose calls reach only
 * XR_ARCH_CALL_REACH bytes either way, get to the executable's argument
 * trampolines. */
void xr_arch_jump_stub(void *at, uintptr_t target);

/* ---- sleds -------------------------------------------------------------- */
/* The port's header gives the bytes a sled occupies: XR_ARCH_CALL_SLED_BYTES
 * for the call kinds (entry..arg), XR_ARCH_CUSTOM_SLED_BYTES and
 * XR_ARCH_TYPED_SLED_BYTES for the events, and XR_ARCH_MAX_SLED_BYTES, the
 * most any kind occupies: the range patching must make writable. */
static inline size_t xr_arch_sled_size(uint8_t kind) { /* kind: XR_T_* */
  return kind == XR_T_CUSTOM  ? XR_ARCH_CUSTOM_SLED_BYTES
         : kind == XR_T_TYPED ? XR_ARCH_TYPED_SLED_BYTES
                              : XR_ARCH_CALL_SLED_BYTES;
}

/* ---- clock reads -------------------------------------------------------- */
/* What the CPU says about its tick counter and CPU-id readers; filled once
 * by xr_arch_clock_probe (core/clock/clock.c decides from it). */
struct xr_arch_clock_caps {
  bool invariant_ticks;     /* counter at a constant rate, also when idle */
  bool hypervisor;          /* running under one */
  bool cpu_insn;            /* xr_arch_cpu_insn works */
  bool ticks_cpu;           /* xr_arch_ticks_cpu works */
  /* The instruction each of those two reads with, which debug output
   * names as the CPU-id method ("rdpid"); set when the reader works. */
  const char *cpu_insn_name;
  const char *ticks_cpu_name;
  /* The emulator the probe found ("valgrind"), whose CPUID the port did not
   * take on its word for those two readers; NULL natively. */
  const char *emulator;
  uint64_t exact_hz;        /* counter frequency the CPU states exactly, or 0 */
  const char *exact_source; /* where exact_hz came from ("cpuid") */
  uint64_t nominal_hz;      /* a nominal base frequency to check, or 0 */
};
void xr_arch_clock_probe(struct xr_arch_clock_caps *out);

#pragma GCC visibility pop

#endif
