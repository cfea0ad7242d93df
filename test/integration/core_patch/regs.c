/* Register preservation by the trampolines, with a user (full) handler that
 * clobbers everything a C function may, a lean-style handler that clobbers
 * every general register, and no handler. See regs_probe.S. Built without
 * -fxray-instrument: the probes' sleds are the only ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>

#include "core/dispatch/handlers.h" /* runtime-internal: xr_handler_install */

struct state {
  uint64_t gpr[15]; /* rax rbx rcx rdx rsi rdi rbp r8..r15 */
  uint64_t flags;
  uint8_t vec[16][32];
  uint8_t st0[16];
  uint16_t fsw;
  uint8_t pad[46];
};
extern struct state st_in, st_out;
extern uint64_t use_avx, use_x87;
extern void run_probe(void (*)(void));
extern void probe_entry(void), probe_log_args(void), probe_tail(void), probe_exit(void);
extern void probe_custom(void);
extern void clobber_everything(void);
extern void probe_call_preserving_vectors(void);
extern void lean_handler(void);
extern uint64_t lean_calls, lean_last_arg;
/* Runtime-internal, cleared before an install: the pushfq paths, the ymm
 * paths (no AVX-512), the xmm paths (no AVX either). */
extern uint8_t xr_cpu_lahf_sahf, xr_vector_avx512, xr_vector_avx;
extern uint32_t lean_last_id, lean_last_type;

enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, R8, R9, R10, R11, R12, R13, R14, R15 };
static const char *const gpr_names[15] = {"rax", "rbx", "rcx", "rdx", "rsi",
                                          "rdi", "rbp", "r8",  "r9",  "r10",
                                          "r11", "r12", "r13", "r14", "r15"};
#define ARITH_FLAGS 0x8D5u /* CF PF AF ZF SF OF */

static int full_calls, full_last_id, full_last_type;
static uint64_t full_last_arg;
static void *full_last_ptr;
static size_t full_last_size;
static void full_handler(int32_t id, XRayEntryType type) {
  full_calls++;
  full_last_id = id;
  full_last_type = type;
  clobber_everything();
}
static void full_handler_arg1(int32_t id, XRayEntryType type, uint64_t arg) {
  full_last_arg = arg;
  full_handler(id, type);
}

static void full_custom_handler(void *ptr, size_t size) {
  full_last_ptr = ptr;
  full_last_size = size;
  full_handler(0, ENTRY);
}

static int failures;
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("  MISMATCH: " __VA_ARGS__);                                      \
      printf("\n");                                                            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* Status flags the probes start with: all six set, or all six clear (the
 * full handler inverts each one). */
static int flags_set = 1;

static void fill_input(int x87) {
  memset(&st_in, 0, sizeof st_in);
  for (int i = 0; i < 15; i++)
    st_in.gpr[i] = 0x1111111111111111ull * (uint64_t)(i + 1) ^ 0x0123456789ABCDEFull;
  st_in.flags = 0x202 | (flags_set ? ARITH_FLAGS : 0); /* IF, reserved bit */
  for (int r = 0; r < 16; r++)
    for (int b = 0; b < 32; b++)
      st_in.vec[r][b] = (uint8_t)(r * 37 + b * 11 + 1);
  long double pi = 3.14159265358979323846264338327950288L;
  memcpy(st_in.st0, &pi, 10);
  use_x87 = (uint64_t)x87;
}

/* Compares the registers in `keep` (bit per gpr index), vector registers
 * 0..nvec-1 (ymm width with AVX), flags and st0 when asked. */
static void expect_preserved(const char *what, unsigned keep, int nvec, int flags,
                             int x87) {
  for (int i = 0; i < 15; i++)
    if (keep & (1u << i))
      EXPECT(st_out.gpr[i] == st_in.gpr[i], "%s: %s %#llx -> %#llx", what, gpr_names[i],
             (unsigned long long)st_in.gpr[i], (unsigned long long)st_out.gpr[i]);
  size_t width = use_avx ? 32 : 16;
  for (int r = 0; r < nvec; r++)
    EXPECT(memcmp(st_out.vec[r], st_in.vec[r], width) == 0, "%s: %cmm%d", what,
           use_avx ? 'y' : 'x', r);
  if (flags)
    EXPECT((st_out.flags & ARITH_FLAGS) == (st_in.flags & ARITH_FLAGS),
           "%s: flags %#llx -> %#llx", what, (unsigned long long)st_in.flags,
           (unsigned long long)st_out.flags);
  EXPECT((st_out.flags & 0x400) == 0, "%s: DF set", what);
  if (x87) {
    EXPECT(memcmp(st_out.st0, st_in.st0, 10) == 0, "%s: st0 (long double)", what);
    EXPECT(((st_out.fsw >> 11) & 7) == 7, "%s: x87 depth (TOP %d, want 7)", what,
           (st_out.fsw >> 11) & 7);
  } else {
    EXPECT(((st_out.fsw >> 11) & 7) == 0, "%s: x87 stack not empty", what);
  }
}

#define BIT(r) (1u << (r))
static const unsigned CALLEE_SAVED = BIT(RBX) | BIT(RBP) | BIT(R12) | BIT(R13) | BIT(R14) | BIT(R15);
/* Live at entry / tail exit: arguments, al, r11; r10 holds the id. */
static const unsigned ENTRY_LIVE = BIT(RAX) | BIT(RCX) | BIT(RDX) | BIT(RSI) | BIT(RDI) |
                                   BIT(R8) | BIT(R9) | BIT(R11);
static const unsigned EXIT_LIVE = BIT(RAX) | BIT(RDX);

struct probe {
  const char *name;
  void (*fn)(void);
  int32_t id;
  int type;
};
static const struct probe probes[] = {{"entry", probe_entry, 1, ENTRY},
                                      {"log-args", probe_log_args, 2, LOG_ARGS_ENTRY},
                                      {"tail", probe_tail, 3, TAIL},
                                      {"exit", probe_exit, 4, EXIT}};

enum handler_kind { NONE, FULL, LEAN_STYLE };
static const char *const handler_names[] = {"no handler", "full handler", "lean handler"};

static int arg1_installed;
static void run_case(const struct probe *p, enum handler_kind h) {
  int failures_before = failures;
  char what[64];
  if (h == FULL)
    snprintf(what, sizeof what, "%s, %s, flags %s", p->name, handler_names[h],
             flags_set ? "set" : "clear");
  else
    snprintf(what, sizeof what, "%s, %s", p->name, handler_names[h]);
  int is_exit = p->type == EXIT;
  fill_input(is_exit); /* a long double is live only at exit */
  full_calls = 0;
  lean_calls = 0;
  run_probe(p->fn);
  int calls = h == FULL ? full_calls : h == LEAN_STYLE ? (int)lean_calls : 0;
  EXPECT(calls == (h == NONE ? 0 : 1), "%s: handler called %d times", what, calls);
  if (h == FULL) {
    EXPECT(full_last_id == p->id && full_last_type == p->type, "%s: got (%d, %d)", what,
           full_last_id, full_last_type);
    if (p->type == LOG_ARGS_ENTRY && arg1_installed)
      EXPECT(full_last_arg == st_in.gpr[RDI], "%s: arg %#llx", what,
             (unsigned long long)full_last_arg);
  }
  if (h == LEAN_STYLE) {
    EXPECT((int32_t)lean_last_id == p->id && (int)lean_last_type == p->type,
           "%s: got (%u, %u)", what, lean_last_id, lean_last_type);
    if (p->type == LOG_ARGS_ENTRY && arg1_installed)
      EXPECT(lean_last_arg == st_in.gpr[RDI], "%s: arg %#llx", what,
             (unsigned long long)lean_last_arg);
  }
  /* Flags: kept by the full path only (the lean and empty paths rely on
   * flags being dead at these sleds; see trampoline_x86_64.S). */
  if (is_exit)
    expect_preserved(what, CALLEE_SAVED | EXIT_LIVE, 2, h == FULL, 1);
  else
    expect_preserved(what, CALLEE_SAVED | ENTRY_LIVE, 8, h == FULL, 0);
  /* r10 is the sled's scratch register: the sled itself overwrites it with
   * the id, so no code can hold a value in it across a sled. The full and
   * empty paths leave the id there; the lean path does not save it. */
  if (!is_exit && h != LEAN_STYLE)
    EXPECT(st_out.gpr[R10] == (uint64_t)p->id, "%s: r10 %#llx, want the id", what,
           (unsigned long long)st_out.gpr[R10]);
  printf("%s: %s\n", what, failures > failures_before ? "FAILED" : "ok");
}

/* The custom event probe with the full handler: every register kept (the
 * event paths save all of them, and the flags with pushfq), vector
 * registers 0-15, a live long double. */
static void run_custom_case(void) {
  int failures_before = failures;
  fill_input(1);
  full_calls = 0;
  run_probe(probe_custom);
  EXPECT(full_calls == 1, "custom event: handler called %d times", full_calls);
  EXPECT(full_last_ptr == (void *)st_in.gpr[RDI] && full_last_size == st_in.gpr[RSI],
         "custom event: got (%p, %zu)", full_last_ptr, full_last_size);
  expect_preserved("custom event", (1u << 15) - 1, 16, 1, 1);
  printf("custom event, full handler: %s\n", failures > failures_before ? "FAILED" : "ok");
}

/* One copy of the full paths, chosen by clearing CPU bits before the
 * install (xr_arch_full_path): `avx512`, `avx`, `lahf` as the CPU has them
 * when 1. The dispatch must be at path `path` of each trampoline; then every
 * probe runs with the status flags set and clear. Vectors are compared at
 * the width the path keeps (use_avx). */
static void run_full_form(const char *label, int avx512, int avx, int lahf, unsigned path) {
  uint8_t was_avx512 = xr_vector_avx512, was_avx = xr_vector_avx, was_lahf = xr_cpu_lahf_sahf;
  uint64_t was_use_avx = use_avx;
  xr_vector_avx512 &= (uint8_t)avx512;
  xr_vector_avx &= (uint8_t)avx;
  xr_cpu_lahf_sahf &= (uint8_t)lahf;
  __xray_set_handler(full_handler);
  __xray_set_customevent_handler(full_custom_handler);
  xr_vector_avx512 = was_avx512;
  xr_vector_avx = was_avx;
  xr_cpu_lahf_sahf = was_lahf;
  use_avx &= (uint64_t)avx;
  printf("%s paths:\n", label);
  for (int t = XR_T_ENTRY; t <= XR_T_CUSTOM; t++)
    EXPECT(xr_trampoline_dispatch[t] == xr_trampoline_paths[t][path],
           "%s: trampoline %d not at path %u", label, t, path);
  for (size_t i = 0; i < 4; i++)
    for (flags_set = 1; flags_set >= 0; flags_set--)
      run_case(&probes[i], FULL);
  flags_set = 1;
  run_custom_case();
  __xray_remove_customevent_handler();
  use_avx = was_use_avx;
}

int main(void) {
  use_avx = __builtin_cpu_supports("avx") ? 1 : 0;
  if (__xray_max_function_id() != 5) {
    printf("expected 5 probe functions, got %zu\n", __xray_max_function_id());
    return 1;
  }
  for (int i = 1; i <= 5; i++)
    if (__xray_function_address(i) != (uintptr_t)(i <= 4 ? probes[i - 1].fn : probe_custom)) {
      printf("probe %d at the wrong address\n", i);
      return 1;
    }
  if (__xray_patch() != SUCCESS)
    return 1;
  /* No handler, a lean one; the full paths below. */
  for (size_t i = 0; i < 4; i++)
    run_case(&probes[i], NONE);
  xr_handler_install(XR_SLOT_ARG0, (void *)lean_handler, XR_HANDLER_LEAN);
  for (size_t i = 0; i < 4; i++)
    run_case(&probes[i], LEAN_STYLE);
  /* Every copy of the full paths runs on one machine: as installed (zmm on
   * an AVX-512 CPU), then with the CPU bits cleared, the ymm and the xmm
   * copies, each with lahf/sahf and pushfq/popfq. Without AVX-512 (AVX) the
   * zmm (ymm) forms repeat the narrower ones. */
  uint8_t lahf = xr_cpu_lahf_sahf, avx512 = xr_vector_avx512, avx = xr_vector_avx;
  unsigned widest = avx512 ? XR_PATH_FULL_ZMM : avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  unsigned wide = avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  /* The pushfq copy of each is the next number. */
  run_full_form("installed", 1, 1, 1, widest + !lahf);
  run_full_form("pushfq", 1, 1, 0, widest + 1);
  __xray_set_handler_arg1(full_handler_arg1);
  arg1_installed = 1;
  full_last_arg = 0;
  run_case(&probes[1], FULL);
  __xray_remove_handler_arg1();
  arg1_installed = 0;
  run_full_form("ymm", 0, 1, 1, wide + !lahf);
  run_full_form("ymm pushfq", 0, 1, 0, wide + 1);
  run_full_form("xmm", 0, 0, 1, XR_PATH_FULL_XMM + !lahf);
  run_full_form("xmm pushfq", 0, 0, 0, XR_PATH_FULL_XMM + 1);
  /* Arg1 handlers for the log-args probe. */
  __xray_remove_handler();
  __xray_set_handler_arg1(full_handler_arg1);
  arg1_installed = 1;
  full_last_arg = lean_last_arg = 0;
  run_case(&probes[1], FULL);
  xr_handler_install(XR_SLOT_ARG1, (void *)lean_handler, XR_HANDLER_LEAN);
  full_last_arg = lean_last_arg = 0;
  run_case(&probes[1], LEAN_STYLE);
  /* The lean handlers' slow-path helper keeps every vector register and
   * the x87 stack (here with a live long double). */
  fill_input(1);
  run_probe(probe_call_preserving_vectors);
  int before = failures;
  expect_preserved("xr_call_preserving_vectors", CALLEE_SAVED, 16, 0, 1);
  printf("xr_call_preserving_vectors: %s\n", failures > before ? "FAILED" : "ok");
  printf("avx %s\n", use_avx ? "yes" : "no");
  printf("avx512 %s\n", avx512 ? "yes" : "no");
  printf("lahf %s\n", lahf ? "yes" : "no");
  return failures != 0;
}
