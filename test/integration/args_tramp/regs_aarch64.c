/* Register preservation by the AArch64 argument trampolines, both copies
 * (q0-q7; SVE's, where the CPU has SVE: z0-z31, p0-p15 and FFR whole;
 * values.c runs the copy the runtime chooses), entered as a patched
 * sled enters them (args_probe_aarch64.S; aarch64/regs_probe.S loads and
 * stores every register around the probe), with a hook that clobbers all
 * a C function may. What each must keep is the usual full paths' contract
 * (trampoline_aarch64.S); what the hook gets is hot_tables.h's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "arch/arch.h"                /* runtime-internal: the copies */
#include "core/dispatch/hot_tables.h" /* xr_args_hook */

struct state { /* aarch64/regs_probe.S's layout */
  uint64_t x[19]; /* x0-x18 */
  uint64_t nzcv, fpcr, fpsr;
  uint8_t q[32][16];
};
struct state st_in, st_out;
uint64_t lean_args[5]; /* regs_probe.S's lean handler writes it (unused here) */
#define MAX_VL 256
uint8_t sve_in[32 * MAX_VL + 17 * MAX_VL / 8], sve_out[sizeof sve_in];
extern void run_probe(void (*)(void));
extern void run_probe_sve(void (*)(void));
extern void clobber_everything(void), clobber_sve(void);
extern uint64_t sve_vl(void);
extern void probe_args_entry(void), probe_args_exit(void);
static int have_sve;
void cpv_clobber(void *arg) { (void)arg; } /* regs_probe.S's probe_cpv needs it */

static int hook_calls, hook_type;
static int32_t hook_id;
static struct xr_arg_regs hook_regs;
static void hook(int32_t id, int type, const struct xr_arg_regs *r) {
  hook_calls++;
  hook_id = id;
  hook_type = type;
  hook_regs = *r;
  if (have_sve)
    clobber_sve();
  clobber_everything();
}

static int failures;
static void mismatch(const char *what, const char *fmt, unsigned long long v) {
  printf("  MISMATCH %s: ", what);
  printf(fmt, v);
  printf("\n");
  failures++;
}

static void fill_input(void) {
  for (int i = 0; i < 19; i++)
    st_in.x[i] = 0x1111111111111111ull * (uint64_t)(i % 15 + 1) + (uint64_t)i;
  st_in.x[17] = 0x4321; /* the function id the sled loads */
  st_in.nzcv = 0x90000000; /* N and V */
  st_in.fpcr = 0;
  st_in.fpsr = 0x10; /* IXC */
  for (int q = 0; q < 32; q++)
    for (int b = 0; b < 16; b++)
      st_in.q[q][b] = (uint8_t)(q * 16 + b + 1);
}

static uintptr_t entry_sp;
static void check(const char *what, int is_exit) {
  for (int r = 0; r < 16; r++)
    if (st_out.x[r] != st_in.x[r])
      mismatch(what, "x%llu", (unsigned long long)r);
  if (st_out.x[17] != st_in.x[17])
    mismatch(what, "x17 %#llx", st_out.x[17]);
  if (st_out.nzcv != st_in.nzcv || st_out.fpcr != st_in.fpcr || st_out.fpsr != st_in.fpsr)
    mismatch(what, "nzcv/fpcr/fpsr (nzcv %#llx)", st_out.nzcv);
  for (int q = 0; q < 32; q++) /* q0-q7 kept, d8-d15 by the hook */
    if (memcmp(st_out.q[q], st_in.q[q], q < 8 ? 16 : q < 16 ? 8 : 0))
      mismatch(what, "q%llu", (unsigned long long)q);
  if (hook_calls != 1 || hook_id != 0x4321 || hook_type != (is_exit ? XR_T_EXIT : XR_T_ENTRY))
    mismatch(what, "hook calls %llu", (unsigned long long)hook_calls);
  for (int i = 0; i < 8; i++) {
    int live = i < (is_exit ? 2 : 8);
    uint64_t fpr = 0;
    if (live)
      memcpy(&fpr, st_in.q[i], 8);
    if (hook_regs.gpr[i] != (live ? st_in.x[i] : 0))
      mismatch(what, "gpr[%llu]", (unsigned long long)i);
    if (hook_regs.fpr[i] != fpr)
      mismatch(what, "fpr[%llu]", (unsigned long long)i);
  }
  if (!is_exit)
    entry_sp = hook_regs.sp;
  if (hook_regs.sp % 16 != 0 || hook_regs.sp != entry_sp)
    mismatch(what, "sp %#llx", (unsigned long long)hook_regs.sp);
}

static void check_sve(const char *what, size_t vl) {
  for (int z = 0; z < 32; z++)
    if (memcmp(sve_out + (size_t)z * vl, sve_in + (size_t)z * vl, vl))
      mismatch(what, "z%llu", (unsigned long long)z);
  for (int p = 0; p < 17; p++)
    if (memcmp(sve_out + 32 * vl + (size_t)p * (vl / 8), sve_in + 32 * vl + (size_t)p * (vl / 8),
               vl / 8))
      mismatch(what, p < 16 ? "p%llu" : "ffr", (unsigned long long)p);
}

/* The probes call the trampolines directly (no map: no patching), so the
 * copy is set here; values.c runs the one the runtime chooses. */
static void run_copy(const char *copy, unsigned path, size_t vl) {
  for (int t = XR_T_ENTRY; t <= XR_T_EXIT; t++)
    xr_args_dispatch[t] = xr_args_paths[t][path];
  for (int is_exit = 0; is_exit <= 1; is_exit++) {
    char what[64];
    snprintf(what, sizeof what, "%s, %s", is_exit ? "exit" : "entry", copy);
    int before = failures;
    memset(&st_out, 0, sizeof st_out);
    hook_calls = 0;
    run_probe(is_exit ? probe_args_exit : probe_args_entry);
    check(what, is_exit);
    if (vl) {
      memset(sve_out, 0, sizeof sve_out);
      hook_calls = 0;
      run_probe_sve(is_exit ? probe_args_exit : probe_args_entry);
      check_sve(what, vl);
    }
    printf("%s: %s\n", what, failures == before ? "ok" : "FAILED");
  }
}

int main(void) {
  fill_input();
  have_sve = (getauxval(AT_HWCAP) & (1ul << 22)) != 0; /* HWCAP_SVE */
  size_t vl = have_sve ? (size_t)sve_vl() : 0;
  if (vl > MAX_VL)
    return printf("vector length %zu > %d\n", vl, MAX_VL), 1;
  for (int z = 0; z < 32; z++)
    for (size_t b = 0; b < vl; b++)
      sve_in[(size_t)z * vl + b] = (uint8_t)(z * 7 + b * 13 + 5);
  for (int p = 0; p < 17; p++)
    for (size_t b = 0; b < vl / 8; b++)
      sve_in[32 * vl + (size_t)p * (vl / 8) + b] = (uint8_t)(p * 29 + b * 3 + 1);
  for (size_t b = 0; b < vl / 8; b++) /* FFR: monotonic, to be written back */
    sve_in[32 * vl + 16 * (vl / 8) + b] = b < vl / 16 ? 0xff : 0;
  xr_args_hook = hook;
  /* SVE's copy, checked whole (where the CPU has SVE), then the q copy. */
  if (have_sve)
    run_copy("sve", XR_PATH_FULL_SVE, vl);
  have_sve = 0; /* the q copy keeps q0-q7, not the z registers' upper bits */
  run_copy("q", XR_PATH_FULL, 0);
  have_sve = vl != 0;
  printf("sve %s\n", have_sve ? "yes" : "no");
  return failures != 0;
}
