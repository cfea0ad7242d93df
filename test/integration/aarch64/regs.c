/* Register preservation by the AArch64 trampolines, each entered as a
 * patched sled enters it (regs_probe.S), with no handler, a user (full)
 * handler that clobbers all a C function may, and a lean-style handler
 * that clobbers every general register and NZCV. What each path must keep
 * is the contract written in lib/arch/aarch64/trampoline_aarch64.S. Built
 * without -fxray-instrument: the probes are the only callers.
 * Built with -DXR_REF (reference.sh) for compiler-rt 14's runtime: its
 * sled layout, its public API, no handler and a full handler, the entry,
 * exit and tail trampolines only (it has no event trampolines, and its
 * arg1 trampoline returns onto the sled's literal id). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <xray/xray_interface.h>

#ifndef XR_REF
#include "core/dispatch/handlers.h" /* runtime-internal: xr_handler_install */
#endif

struct state {
  uint64_t x[19]; /* x0-x18 */
  uint64_t nzcv, fpcr, fpsr;
  uint8_t q[32][16];
};
struct state st_in, st_out;
uint64_t lean_args[5]; /* x0-x3 at the lean handler's entry, its call count */

extern void run_probe(void (*)(void));
/* SVE state as run_probe_sve lays it out at vector length vl: z0-z31 at
 * k * vl, then p0-p15 and FFR at 32 * vl + k * vl / 8. Room for the
 * longest vector length, 256 bytes. */
#define MAX_VL 256
uint8_t sve_in[32 * MAX_VL + 17 * MAX_VL / 8], sve_out[sizeof sve_in];
static uint8_t *z_reg(uint8_t *st, size_t vl, int k) { return st + (size_t)k * vl; }
static uint8_t *p_reg(uint8_t *st, size_t vl, int k) { return st + 32 * vl + (size_t)k * (vl / 8); }
extern void run_probe_sve(void (*)(void));
extern void clobber_sve(void);
extern uint64_t sve_vl(void);
static int have_sve;
extern void probe_entry(void), probe_exit(void), probe_tail(void), probe_log_args(void);
extern void probe_custom(void), probe_typed(void);
extern void clobber_everything(void);
extern void lean_handler(void);

static uint64_t full_args[4];
static int full_calls;
static void clobber_all(void) {
  if (have_sve)
    clobber_sve();
  clobber_everything();
}
void cpv_clobber(void *arg) { (void)arg, clobber_all(); }
extern void probe_cpv(void);

static void full_arg0(int32_t id, XRayEntryType type) {
  full_calls++, full_args[0] = (uint32_t)id, full_args[1] = type;
  clobber_all();
}
static void full_arg1(int32_t id, XRayEntryType type, uint64_t arg) {
  full_args[2] = arg;
  full_arg0(id, type);
}
#ifndef XR_REF
static void full_custom(void *p, size_t n) {
  full_calls++, full_args[0] = (uintptr_t)p, full_args[1] = n;
  clobber_all();
}
static void full_typed(size_t type, const void *p, size_t n) {
  full_calls++, full_args[0] = type, full_args[1] = (uintptr_t)p, full_args[2] = n;
  clobber_all();
}
#endif

enum handler { NONE, FULL, LEAN_STYLE };
struct probe {
  const char *name;
  void (*fn)(void);
  int kind;            /* XRayEntryType */
  unsigned lean_gprs;  /* x0..x(n-1) a lean path keeps (and x17 for events) */
  int event;
};
static const struct probe probes[] = {
    {"entry", probe_entry, ENTRY, 9, 0},
    {"exit", probe_exit, EXIT, 2, 0},
    {"tail", probe_tail, TAIL, 16, 0},
#ifndef XR_REF
    {"log-args", probe_log_args, LOG_ARGS_ENTRY, 9, 0},
    {"custom", probe_custom, CUSTOM_EVENT, 16, 1},
    {"typed", probe_typed, TYPED_EVENT, 16, 1},
#endif
};

static int failures;
static int mismatch(const char *what, const char *reg) {
  printf("  MISMATCH %s: %s\n", what, reg);
  return ++failures, 0;
}

static void fill_input(void) {
  for (int i = 0; i < 19; i++)
    st_in.x[i] = 0x1111111111111111ull * (uint64_t)(i % 15 + 1) + (uint64_t)i;
  st_in.x[17] = 0x4321; /* the function id the sled loads */
  st_in.x[2] &= 0xffff; /* typed events: the type is 16 bits */
  st_in.nzcv = 0x90000000; /* N and V */
  st_in.fpcr = 0;
  st_in.fpsr = 0x10; /* IXC */
  for (int q = 0; q < 32; q++)
    for (int b = 0; b < 16; b++)
      st_in.q[q][b] = (uint8_t)(q * 16 + b + 1);
}

static void check(const struct probe *p, enum handler h, const char *what) {
  char reg[16];
  bool full = h == FULL, lean = h == LEAN_STYLE;
  unsigned gprs = lean ? p->lean_gprs : 16;
  for (unsigned r = 0; r < gprs; r++)
    if (st_out.x[r] != st_in.x[r])
      snprintf(reg, sizeof reg, "x%u", r), mismatch(what, reg);
  if ((!lean || p->event) && st_out.x[17] != st_in.x[17])
    mismatch(what, "x17");
  if ((!lean || p->event) && st_out.nzcv != st_in.nzcv)
    mismatch(what, "nzcv");
  if (st_out.fpcr != st_in.fpcr)
    mismatch(what, "fpcr");
  if (st_out.fpsr != st_in.fpsr)
    mismatch(what, "fpsr");
  /* Vectors: a full entry-like path keeps q0-q7 whole, the handler d8-d15
   * (callee-saved halves); a full event path all of q0-q31; the other
   * paths run no code that touches them. */
  for (int q = 0; q < 32; q++) {
    size_t n = 16;
    if (full && !p->event && q >= 8)
      n = q < 16 ? 8 : 0;
    if (memcmp(st_out.q[q], st_in.q[q], n))
      snprintf(reg, sizeof reg, "q%d", q), mismatch(what, reg);
  }
  /* The handler saw the sled's arguments. */
  int want_calls = h == NONE ? 0 : 1;
  int calls = full ? full_calls : lean ? (int)lean_args[4] : 0;
  if (calls != want_calls) {
    printf("  MISMATCH %s: %d handler calls\n", what, calls);
    failures++;
    return;
  }
  if (h == NONE)
    return;
  const uint64_t *got = full ? full_args : lean_args;
  uint64_t want[3] = {0x4321, (uint64_t)p->kind, st_in.x[0]}; /* id, type, arg */
  int n = p->kind == LOG_ARGS_ENTRY ? 3 : 2;
  if (p->event)
    memcpy(want, st_in.x, sizeof want), n = p->kind == TYPED_EVENT ? 3 : 2;
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("  MISMATCH %s: handler argument %d = %#llx\n", what, i, (unsigned long long)got[i]);
      failures++;
    }
}

/* With SVE every path keeps z0-z31, p0-p15 and FFR whole: the none and
 * lean paths touch none of them, the full path (FULL_SVE) saves them. */
static void check_sve(const char *what, size_t vl) {
  char reg[16];
  for (int z = 0; z < 32; z++)
    if (memcmp(z_reg(sve_out, vl, z), z_reg(sve_in, vl, z), vl))
      snprintf(reg, sizeof reg, "z%d", z), mismatch(what, reg);
  for (int p = 0; p < 17; p++)
    if (memcmp(p_reg(sve_out, vl, p), p_reg(sve_in, vl, p), vl / 8))
      snprintf(reg, sizeof reg, p < 16 ? "p%d" : "ffr", p), mismatch(what, reg);
}

static void install(const struct probe *p, enum handler h) {
#ifdef XR_REF
  (void)p;
  __xray_set_handler(h == FULL ? full_arg0 : NULL);
  __xray_set_handler_arg1(h == FULL ? full_arg1 : NULL);
#else
  void *fn = NULL;
  unsigned flags = 0;
  unsigned slot = p->kind == CUSTOM_EVENT     ? XR_SLOT_CUSTOM
                  : p->kind == TYPED_EVENT    ? XR_SLOT_TYPED
                  : p->kind == LOG_ARGS_ENTRY ? XR_SLOT_ARG1
                                              : XR_SLOT_ARG0;
  if (h == LEAN_STYLE)
    fn = (void *)lean_handler, flags = XR_HANDLER_LEAN;
  else if (h == FULL)
    fn = p->kind == CUSTOM_EVENT ? (void *)full_custom : p->kind == TYPED_EVENT ? (void *)full_typed
         : p->kind == LOG_ARGS_ENTRY ? (void *)full_arg1 : (void *)full_arg0;
  for (unsigned s = 0; s < XR_SLOT_COUNT; s++)
    xr_handler_install(s, NULL, 0);
  if (fn)
    xr_handler_install(slot, fn, flags);
#endif
}

int main(void) {
  static const char *const names[] = {"no handler", "full handler", "lean handler"};
  fill_input();
  have_sve = (getauxval(AT_HWCAP) & (1ul << 22)) != 0; /* HWCAP_SVE */
  size_t vl = have_sve ? (size_t)sve_vl() : 0;
  if (vl > MAX_VL)
    return printf("vector length %zu > %d\n", vl, MAX_VL), 1;
  for (int z = 0; z < 32; z++)
    for (size_t b = 0; b < vl; b++)
      z_reg(sve_in, vl, z)[b] = (uint8_t)(z * 7 + b * 13 + 5);
  for (int p = 0; p < 17; p++)
    for (size_t b = 0; b < vl / 8; b++)
      p_reg(sve_in, vl, p)[b] = (uint8_t)(p * 29 + b * 3 + 1);
  /* FFR must be monotonic (true elements first) to be written back */
  for (size_t b = 0; b < vl / 8; b++)
    p_reg(sve_in, vl, 16)[b] = b < vl / 16 ? 0xff : 0;
#ifdef XR_REF
  printf("sve: %s\n", have_sve ? "yes" : "no");
  const int last = FULL;
#else
  const int last = LEAN_STYLE;
#endif
  for (int h = NONE; h <= last; h++)
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
      const struct probe *p = &probes[i];
      char what[64];
      snprintf(what, sizeof what, "%s, %s", p->name, names[h]);
      install(p, (enum handler)h);
      memset(&st_out, 0, sizeof st_out);
      memset(full_args, 0, sizeof full_args);
      memset(lean_args, 0, sizeof lean_args);
      full_calls = 0;
      int before = failures;
      run_probe(p->fn);
      check(p, (enum handler)h, what);
      if (have_sve) {
        memset(sve_out, 0, sizeof sve_out);
        run_probe_sve(p->fn);
        check_sve(what, vl);
      }
      printf("%s: %s\n", what, failures == before ? "ok" : "FAILED");
    }
#ifdef XR_REF
  return failures != 0;
#else
  /* The lean handlers' slow-path helper keeps every vector register (the
   * z/p registers and FFR with SVE), FPCR and FPSR. */
  int before = failures;
  memset(&st_out, 0, sizeof st_out);
  run_probe(probe_cpv);
  for (int q = 0; q < 32; q++)
    if (memcmp(st_out.q[q], st_in.q[q], 16))
      printf("  MISMATCH call_preserving_vectors: q%d\n", q), failures++;
  if (st_out.fpcr != st_in.fpcr || st_out.fpsr != st_in.fpsr)
    printf("  MISMATCH call_preserving_vectors: fpcr/fpsr\n"), failures++;
  if (have_sve) {
    memset(sve_out, 0, sizeof sve_out);
    run_probe_sve(probe_cpv);
    check_sve("call_preserving_vectors", vl);
  }
  printf("call_preserving_vectors: %s\n", failures == before ? "ok" : "FAILED");
  return failures != 0;
#endif
}
