/* Register preservation by the x86-64 argument trampolines, every copy
 * (zmm, ymm, xmm, each with lahf/sahf and pushfq/popfq), entered from the
 * hand-made sleds of core_patch/regs_probe.S (nothing but a sled runs
 * between loading and storing the registers), with a hook that clobbers
 * all a C function may (clobber_everything: general registers, every
 * vector register, all eight x87 registers, each status flag inverted).
 * What each must keep is the usual full paths' contract
 * (trampoline_x86_64.S); what the hook gets is hot_tables.h's. Built
 * without -fxray-instrument: the probes are the only sleds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xray/xray_interface.h>

#include "arch/arch.h"                /* runtime-internal: the copies */
#include "core/dispatch/hot_tables.h" /* xr_args_hook */
#include "core/patch/patch_api.h"     /* xr_patch_set_args */

struct state { /* regs_probe.S's layout */
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
extern void clobber_everything(void);
/* Runtime-internal CPU bits, cleared before choosing the copies. */
extern uint8_t xr_cpu_lahf_sahf, xr_vector_avx512, xr_vector_avx;

enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, R8, R9, R10, R11, R12, R13, R14, R15 };
static const char *const gpr_names[15] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
                                          "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
#define ARITH_FLAGS 0x8D5u /* CF PF AF ZF SF OF */
#define BIT(r) (1u << (r))
static const unsigned CALLEE_SAVED =
    BIT(RBX) | BIT(RBP) | BIT(R12) | BIT(R13) | BIT(R14) | BIT(R15);
static const unsigned ENTRY_LIVE = BIT(RAX) | BIT(RCX) | BIT(RDX) | BIT(RSI) | BIT(RDI) |
                                   BIT(R8) | BIT(R9) | BIT(R11);
static const unsigned EXIT_LIVE = BIT(RAX) | BIT(RDX);

static int hook_calls, hook_type;
static int32_t hook_id;
static struct xr_arg_regs hook_regs;
static void hook(int32_t id, int type, const struct xr_arg_regs *r) {
  hook_calls++;
  hook_id = id;
  hook_type = type;
  hook_regs = *r;
  clobber_everything();
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

static int flags_set = 1;
static void fill_input(int x87) {
  memset(&st_in, 0, sizeof st_in);
  for (int i = 0; i < 15; i++)
    st_in.gpr[i] = 0x1111111111111111ull * (uint64_t)(i + 1) ^ 0x0123456789ABCDEFull;
  st_in.flags = 0x202 | (flags_set ? ARITH_FLAGS : 0);
  for (int r = 0; r < 16; r++)
    for (int b = 0; b < 32; b++)
      st_in.vec[r][b] = (uint8_t)(r * 37 + b * 11 + 1);
  long double pi = 3.14159265358979323846264338327950288L;
  memcpy(st_in.st0, &pi, 10);
  use_x87 = (uint64_t)x87;
}

static uint64_t low64(int r) {
  uint64_t v;
  memcpy(&v, st_in.vec[r], 8);
  return v;
}

static uintptr_t entry_sp;
static void run_case(const char *form, int is_exit) {
  int before = failures;
  char what[96];
  snprintf(what, sizeof what, "%s, %s, flags %s", is_exit ? "exit" : "entry", form,
           flags_set ? "set" : "clear");
  fill_input(is_exit);
  hook_calls = 0;
  memset(&hook_regs, 0xAB, sizeof hook_regs);
  run_probe(is_exit ? probe_exit : probe_entry);
  EXPECT(hook_calls == 1 && hook_id == (is_exit ? 4 : 1) &&
             hook_type == (is_exit ? XR_T_EXIT : XR_T_ENTRY),
         "%s: hook calls %d, id %d, type %d", what, hook_calls, hook_id, hook_type);
  unsigned keep = CALLEE_SAVED | (is_exit ? EXIT_LIVE : ENTRY_LIVE);
  for (int i = 0; i < 15; i++)
    if (keep & (1u << i))
      EXPECT(st_out.gpr[i] == st_in.gpr[i], "%s: %s %#llx -> %#llx", what, gpr_names[i],
             (unsigned long long)st_in.gpr[i], (unsigned long long)st_out.gpr[i]);
  /* r10: the id the sled wrote there, kept as by the full entry path. */
  if (!is_exit)
    EXPECT(st_out.gpr[R10] == 1, "%s: r10 %#llx, want the id", what,
           (unsigned long long)st_out.gpr[R10]);
  size_t width = use_avx ? 32 : 16;
  for (int r = 0; r < (is_exit ? 2 : 8); r++)
    EXPECT(memcmp(st_out.vec[r], st_in.vec[r], width) == 0, "%s: vector %d", what, r);
  EXPECT((st_out.flags & ARITH_FLAGS) == (st_in.flags & ARITH_FLAGS), "%s: flags %#llx -> %#llx",
         what, (unsigned long long)st_in.flags, (unsigned long long)st_out.flags);
  if (is_exit) {
    EXPECT(memcmp(st_out.st0, st_in.st0, 10) == 0, "%s: st0 (long double)", what);
    EXPECT(((st_out.fsw >> 11) & 7) == 7, "%s: x87 depth", what);
  } else {
    EXPECT(((st_out.fsw >> 11) & 7) == 0, "%s: x87 stack not empty", what);
  }
  /* What the hook was given. */
  static const int entry_gprs[6] = {RDI, RSI, RDX, RCX, R8, R9};
  for (int i = 0; i < 8; i++) {
    uint64_t want_gpr = is_exit ? (i < 2 ? st_in.gpr[i == 0 ? RAX : RDX] : 0)
                                : (i < 6 ? st_in.gpr[entry_gprs[i]] : 0);
    uint64_t want_fpr = i < (is_exit ? 2 : 8) ? low64(i) : 0;
    EXPECT(hook_regs.gpr[i] == want_gpr, "%s: gpr[%d] %#llx", what, i,
           (unsigned long long)hook_regs.gpr[i]);
    EXPECT(hook_regs.fpr[i] == want_fpr, "%s: fpr[%d] %#llx", what, i,
           (unsigned long long)hook_regs.fpr[i]);
  }
  /* The sled's stack pointer: the address of the probe's return address,
   * the same for both probes (run_probe calls each from one frame). */
  if (!is_exit)
    entry_sp = hook_regs.sp;
  EXPECT(hook_regs.sp % 16 == 8 && hook_regs.sp == entry_sp, "%s: sp %#lx (entry's %#lx)", what,
         (unsigned long)hook_regs.sp, (unsigned long)entry_sp);
  printf("%s: %s\n", what, failures > before ? "FAILED" : "ok");
}

/* Chooses a copy by clearing CPU bits before xr_patch_set_args sends the
 * sleds to the argument trampolines again (the copies are chosen each time
 * sleds are sent there). */
static const uint8_t want[5] = {XR_ARGS_AT_ENTRY, XR_ARGS_AT_ENTRY, 0, XR_ARGS_AT_EXIT, 0};
static void run_form(const char *label, int avx512, int avx, int lahf, unsigned path) {
  uint8_t was_avx512 = xr_vector_avx512, was_avx = xr_vector_avx, was_lahf = xr_cpu_lahf_sahf;
  uint64_t was_use_avx = use_avx;
  xr_vector_avx512 &= (uint8_t)avx512;
  xr_vector_avx &= (uint8_t)avx;
  xr_cpu_lahf_sahf &= (uint8_t)lahf;
  int s = xr_patch_set_args(0, NULL, 0) == SUCCESS ? xr_patch_set_args(0, want, 5) : FAILED;
  xr_vector_avx512 = was_avx512;
  xr_vector_avx = was_avx;
  xr_cpu_lahf_sahf = was_lahf;
  use_avx &= (uint64_t)avx;
  EXPECT(s == SUCCESS, "%s: xr_patch_set_args %d", label, s);
  for (int t = XR_T_ENTRY; t <= XR_T_EXIT; t++)
    EXPECT(xr_args_dispatch[t] == xr_args_paths[t][path], "%s: trampoline %d not at copy %u",
           label, t, path);
  for (flags_set = 1; flags_set >= 0; flags_set--) {
    run_case(label, 0);
    run_case(label, 1);
  }
  /* The log-args probe's sled goes to the entry trampoline too, the tail
   * probe's keeps the usual one (no handler: nothing called). */
  fill_input(0);
  hook_calls = 0;
  run_probe(probe_log_args);
  EXPECT(hook_calls == 1 && hook_id == 2 && hook_type == XR_T_ENTRY &&
             hook_regs.gpr[0] == st_in.gpr[RDI],
         "%s: log-args probe: %d calls, id %d", label, hook_calls, hook_id);
  hook_calls = 0;
  run_probe(probe_tail);
  EXPECT(hook_calls == 0, "%s: tail probe reached the hook", label);
  use_avx = was_use_avx;
}

int main(void) {
  use_avx = __builtin_cpu_supports("avx") ? 1 : 0;
  if (__xray_max_function_id() != 5 || __xray_function_address(1) != (uintptr_t)probe_entry ||
      __xray_function_address(4) != (uintptr_t)probe_exit) {
    printf("the probes' map is not as expected\n");
    return 1;
  }
  xr_args_hook = hook;
  if (xr_patch_set_args(0, want, 5) != SUCCESS || __xray_patch() != SUCCESS)
    return 1;
  uint8_t lahf = xr_cpu_lahf_sahf, avx512 = xr_vector_avx512, avx = xr_vector_avx;
  unsigned widest = avx512 ? XR_PATH_FULL_ZMM : avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  unsigned wide = avx ? XR_PATH_FULL : XR_PATH_FULL_XMM;
  run_form("chosen", 1, 1, 1, widest + !lahf);
  run_form("pushfq", 1, 1, 0, widest + 1);
  run_form("ymm", 0, 1, 1, wide + !lahf);
  run_form("ymm pushfq", 0, 1, 0, wide + 1);
  run_form("xmm", 0, 0, 1, XR_PATH_FULL_XMM + !lahf);
  run_form("xmm pushfq", 0, 0, 0, XR_PATH_FULL_XMM + 1);
  printf("avx %s, avx512 %s, lahf %s\n", avx ? "yes" : "no", avx512 ? "yes" : "no",
         lahf ? "yes" : "no");
  return failures != 0;
}
