/* The argument trampolines, through real instrumented functions: a hook
 * that records the registers it is given (a per-thread log) and then
 * clobbers every register a C function may (vectors at full width, the
 * whole x87 stack), functions with known arguments and results, each
 * compared bit for bit with what the hook saw and with what the caller
 * got back. Functions without want bits, and the sleds whose bits do not
 * ask (an entry-only function's exit, a tail exit), keep reaching the
 * usual handler, counted exactly. With "gdb" as argument it only makes
 * the calls that values.sh's gdb stops in (gdb_entry, gdb_exit). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xray/xray_interface.h>

#include "core/patch/patch_api.h" /* runtime-internal: xr_patch_set_args */
#include "values.h"

#if defined(__x86_64__)
#define LDBL_BYTES 10 /* x87 extended: the rest is padding */
#else
#define LDBL_BYTES 16
#endif
/* ---- the hook ------------------------------------------------------------ */
__thread struct rec logged[8];
__thread int nlogged;

NOX static void clobber(void) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,"
                     "25,26,27,28,29,30,31\n vpternlogd $0xff, %%zmm\\r, %%zmm\\r, %%zmm\\r\n .endr"
                     ::: "memory");
  else if (__builtin_cpu_supports("avx"))
    __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
                     " vpcmpeqd %%ymm\\r, %%ymm\\r, %%ymm\\r\n .endr" ::: "memory");
  else
    __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
                     " pcmpeqd %%xmm\\r, %%xmm\\r\n .endr" ::: "memory");
  /* All eight x87 registers, as the ABI lets any callee use them. */
  __asm__ volatile(".rept 8\n fldpi\n .endr\n .rept 8\n fstp %%st(0)\n .endr" ::: "memory");
#elif defined(__aarch64__)
  __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
                   " movi v\\r\\().16b, #0xff\n .endr" ::: "memory");
#endif
}

NOX static void hook(int32_t id, int type, const struct xr_arg_regs *r) {
  if (nlogged < 8) {
    logged[nlogged].id = id;
    logged[nlogged].type = type;
    logged[nlogged].r = *r;
    nlogged++;
  }
  clobber();
}

/* The usual handler: events per function id and type. */
static uint64_t usual[64][4];
NOX static void usual_handler(int32_t id, XRayEntryType type) {
  if (id > 0 && id < 64 && type < 4)
    __atomic_fetch_add(&usual[id][type], 1, __ATOMIC_RELAXED);
}

/* ---- instrumented functions ------------------------------------------------ */
FN long f_int6(long a, long b, long c, long d, long e, long f) {
  return a ^ b ^ c ^ d ^ e ^ f;
}
#if defined(__aarch64__)
FN long f_int8(long a, long b, long c, long d, long e, long f, long g, long h) {
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}
#endif
FN double f_dbl8(double a, double b, double c, double d, double e, double f, double g,
                 double h) {
  (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h;
  return a;
}
FN float f_flt(float a, float b) { return a * b; }
FN double f_mixed(int i, double x, long l, float y) { return x + (double)l + y + i; }
struct L2 {
  long a, b;
};
struct D2 {
  double x, y;
};
FN long f_struct_l(struct L2 s) { return s.a - s.b; }
FN double f_struct_d(struct D2 s) { return s.x * s.y; }
FN struct L2 f_ret_l2(long a) { return (struct L2){a, ~a}; }
FN int f_ret_int(int a) { return a * 3; }
FN long double f_ret_ld(long double a) { return -a; } /* no libm call (AArch64: a tail call) */
FN long f_entry_only(long a) { return a + 1; }
FN long f_exit_only(long a) { return a + 2; }
FN long f_plain(long a) { return a + 3; } /* never has bits */
FN __attribute__((xray_log_args(1))) long f_logged(long a, long b) { return a - b; }
FN long f_tail_callee(long a) { return a * 5; }
long (*volatile tail_next)(long) = f_tail_callee;
/* A tail exit: its sled keeps the usual trampoline, AT_EXIT or not (on
 * AArch64 the sled's kind is EXIT, before the tail call's branch: x0 holds
 * the callee's argument there, no result). */
FN long f_tail(long a) { __attribute__((musttail)) return tail_next(a + 1); }

/* The calls values.sh's gdb stops in: gdb_at_hook is where its breakpoint
 * is (so the backtrace starts in the hook). */
NOX void gdb_at_hook(void) { __asm__ volatile(""); }
NOX static void gdb_hook(int32_t id, int type, const struct xr_arg_regs *r) {
  (void)id, (void)type, (void)r;
  gdb_at_hook();
}
FN long gdb_entry(long a) { return a + 1; }
FN long gdb_exit(long a) { return a + 2; }

/* ---- checks ---------------------------------------------------------------- */
int failures;

static double d_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static uint32_t bits_f(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static int32_t id_of(void *fn) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int32_t)id;
  printf("no function id for %p\n", fn);
  exit(2);
}

NOX const struct rec *expect_log(const char *name, void *fn, int entry, int exit) {
  int32_t id = id_of(fn);
  EXPECT(nlogged == entry + exit, "%s: %d records, want %d", name, nlogged, entry + exit);
  if (entry && nlogged >= 1)
    EXPECT(logged[0].id == id && logged[0].type == XR_T_ENTRY, "%s: entry record (%d, %d)",
           name, logged[0].id, logged[0].type);
  if (exit && nlogged == entry + exit)
    EXPECT(logged[nlogged - 1].id == id && logged[nlogged - 1].type == XR_T_EXIT,
           "%s: exit record (%d, %d)", name, logged[nlogged - 1].id, logged[nlogged - 1].type);
  return logged;
}

/* The sled's stack pointer: the same at entry and exit of one call. */
NOX static void expect_same_sp(const char *name) {
  if (nlogged == 2)
    EXPECT(logged[0].r.sp == logged[1].r.sp && logged[0].r.sp != 0, "%s: sp %#lx / %#lx", name,
           (unsigned long)logged[0].r.sp, (unsigned long)logged[1].r.sp);
}


NOX static void test_ints(void) {
  int before = failures;
  long v[8];
  for (int i = 0; i < 8; i++)
    v[i] = (long)(0x0123456789ABCDEFull * (uint64_t)(i + 1) ^ 0xF00DFACE00000000ull);
  nlogged = 0;
  long got = CALL(f_int6)(v[0], v[1], v[2], v[3], v[4], v[5]);
  EXPECT(got == (v[0] ^ v[1] ^ v[2] ^ v[3] ^ v[4] ^ v[5]), "f_int6 returned %#lx", got);
  const struct rec *l = expect_log("f_int6", (void *)f_int6, 1, 1);
  for (int i = 0; i < 6; i++)
    EXPECT(l[0].r.gpr[i] == (uint64_t)v[i], "f_int6 gpr[%d] %#llx", i,
           (unsigned long long)l[0].r.gpr[i]);
  EXPECT(l[1].r.gpr[0] == (uint64_t)got, "f_int6 retval %#llx", (unsigned long long)l[1].r.gpr[0]);
  expect_same_sp("f_int6");
#if defined(__aarch64__)
  nlogged = 0;
  got = CALL(f_int8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
  l = expect_log("f_int8", (void *)f_int8, 1, 1);
  for (int i = 0; i < 8; i++)
    EXPECT(l[0].r.gpr[i] == (uint64_t)v[i], "f_int8 gpr[%d]", i);
  EXPECT(l[1].r.gpr[0] == (uint64_t)got, "f_int8 retval");
#else
  EXPECT(l[0].r.gpr[6] == 0 && l[0].r.gpr[7] == 0, "f_int6 gpr[6..7] not 0");
#endif
  printf("integers: %s\n", failures > before ? "FAILED" : "ok");
}

NOX static void test_doubles(void) {
  int before = failures;
  uint64_t in[8] = {0x7ff8dead0000beefull, 0x8000000000000000ull, bits_d(1.5), bits_d(-2.25),
                    bits_d(1e300), 0x0000000000000001ull, bits_d(-0.1), 0xfff0000000000000ull};
  nlogged = 0;
  double got = CALL(f_dbl8)(d_bits(in[0]), d_bits(in[1]), d_bits(in[2]), d_bits(in[3]),
                            d_bits(in[4]), d_bits(in[5]), d_bits(in[6]), d_bits(in[7]));
  EXPECT(bits_d(got) == in[0], "f_dbl8 returned %#llx", (unsigned long long)bits_d(got));
  const struct rec *l = expect_log("f_dbl8", (void *)f_dbl8, 1, 1);
  for (int i = 0; i < 8; i++)
    EXPECT(l[0].r.fpr[i] == in[i], "f_dbl8 fpr[%d] %#llx", i, (unsigned long long)l[0].r.fpr[i]);
  EXPECT(l[1].r.fpr[0] == in[0], "f_dbl8 retval %#llx", (unsigned long long)l[1].r.fpr[0]);
  for (int i = 2; i < 8; i++)
    EXPECT(l[1].r.gpr[i] == 0 && l[1].r.fpr[i] == 0, "f_dbl8 exit [%d] not 0", i);

  nlogged = 0;
  float f = CALL(f_flt)(-0.0f, 3.5f);
  l = expect_log("f_flt", (void *)f_flt, 1, 1);
  EXPECT(bits_f(f) == 0x80000000u, "f_flt returned %#x", bits_f(f));
  EXPECT((uint32_t)l[0].r.fpr[0] == 0x80000000u && (uint32_t)l[0].r.fpr[1] == bits_f(3.5f),
         "f_flt fpr %#llx %#llx", (unsigned long long)l[0].r.fpr[0],
         (unsigned long long)l[0].r.fpr[1]);
  EXPECT((uint32_t)l[1].r.fpr[0] == 0x80000000u, "f_flt retval");

  nlogged = 0;
  double m = CALL(f_mixed)(-7, 0.5, 1L << 40, 0.25f);
  l = expect_log("f_mixed", (void *)f_mixed, 1, 1);
  EXPECT(m == 0.5 + (double)(1L << 40) + 0.25 - 7, "f_mixed returned %.17g", m);
  EXPECT((int32_t)l[0].r.gpr[0] == -7 && l[0].r.gpr[1] == 1ull << 40, "f_mixed gprs");
  EXPECT(l[0].r.fpr[0] == bits_d(0.5) && (uint32_t)l[0].r.fpr[1] == bits_f(0.25f),
         "f_mixed fprs");
  EXPECT(l[1].r.fpr[0] == bits_d(m), "f_mixed retval");
  printf("floating point: %s\n", failures > before ? "FAILED" : "ok");
}

NOX static void test_structs(void) {
  int before = failures;
  nlogged = 0;
  long d = CALL(f_struct_l)((struct L2){0x1111222233334444L, -5});
  const struct rec *l = expect_log("f_struct_l", (void *)f_struct_l, 1, 1);
  EXPECT(d == 0x1111222233334449L, "f_struct_l returned %#lx", d);
  EXPECT(l[0].r.gpr[0] == 0x1111222233334444ull && l[0].r.gpr[1] == (uint64_t)-5L,
         "f_struct_l gprs");
  nlogged = 0;
  double p = CALL(f_struct_d)((struct D2){1.25, -0.0});
  l = expect_log("f_struct_d", (void *)f_struct_d, 1, 1);
  EXPECT(bits_d(p) == 0x8000000000000000ull, "f_struct_d returned %g", p);
  EXPECT(l[0].r.fpr[0] == bits_d(1.25) && l[0].r.fpr[1] == 0x8000000000000000ull,
         "f_struct_d fprs");
  nlogged = 0;
  struct L2 r = CALL(f_ret_l2)(0x5A5A5A5A5A5A5A5AL);
  l = expect_log("f_ret_l2", (void *)f_ret_l2, 1, 1);
  EXPECT(r.a == 0x5A5A5A5A5A5A5A5AL && r.b == ~0x5A5A5A5A5A5A5A5AL, "f_ret_l2 returned");
  EXPECT(l[1].r.gpr[0] == (uint64_t)r.a && l[1].r.gpr[1] == (uint64_t)r.b, "f_ret_l2 retval");
  nlogged = 0;
  int i = CALL(f_ret_int)(-1000);
  l = expect_log("f_ret_int", (void *)f_ret_int, 1, 1);
  EXPECT(i == -3000 && (int32_t)l[1].r.gpr[0] == -3000, "f_ret_int %d / %d", i,
         (int32_t)l[1].r.gpr[0]);
  printf("structs and integer results: %s\n", failures > before ? "FAILED" : "ok");
}

NOX static void test_long_double(void) {
  int before = failures;
  long double in = 1.0L / 3;
  long double want = -in;
  for (int k = 0; k < 2; k++) { /* the second exit takes the remembered path */
    nlogged = 0;
    long double got = CALL(f_ret_ld)(in);
    expect_log("f_ret_ld", (void *)f_ret_ld, 1, 1);
    EXPECT(memcmp(&got, &want, LDBL_BYTES) == 0, "f_ret_ld: the caller got %La, want %La", got,
           want);
  }
  printf("long double result: %s\n", failures > before ? "FAILED" : "ok");
}


/* Sleds whose bits do not ask keep the usual trampolines; functions
 * without bits are as before. */
NOX static void test_choice(void) {
  int before = failures;
  memset(usual, 0, sizeof usual);
  int32_t e = id_of((void *)f_entry_only), x = id_of((void *)f_exit_only),
          p = id_of((void *)f_plain), g = id_of((void *)f_logged);
  nlogged = 0;
  EXPECT(CALL(f_entry_only)(1) == 2, "f_entry_only result");
  expect_log("f_entry_only", (void *)f_entry_only, 1, 0);
  EXPECT(usual[e][ENTRY] == 0 && usual[e][EXIT] == 1, "f_entry_only: usual %llu/%llu",
         (unsigned long long)usual[e][ENTRY], (unsigned long long)usual[e][EXIT]);
  nlogged = 0;
  EXPECT(CALL(f_exit_only)(1) == 3, "f_exit_only result");
  expect_log("f_exit_only", (void *)f_exit_only, 0, 1);
  EXPECT(usual[x][ENTRY] == 1 && usual[x][EXIT] == 0, "f_exit_only: usual %llu/%llu",
         (unsigned long long)usual[x][ENTRY], (unsigned long long)usual[x][EXIT]);
  nlogged = 0;
  for (int k = 0; k < 3; k++)
    EXPECT(CALL(f_plain)(k) == k + 3, "f_plain result");
  EXPECT(nlogged == 0, "f_plain reached the hook");
  EXPECT(usual[p][ENTRY] == 3 && usual[p][EXIT] == 3, "f_plain: usual %llu/%llu",
         (unsigned long long)usual[p][ENTRY], (unsigned long long)usual[p][EXIT]);
  /* A log-args sled of an entry function: the argument entry trampoline. */
  nlogged = 0;
  EXPECT(CALL(f_logged)(50, 8) == 42, "f_logged result");
  const struct rec *l = expect_log("f_logged", (void *)f_logged, 1, 1);
  EXPECT(l[0].r.gpr[0] == 50 && l[0].r.gpr[1] == 8, "f_logged gprs");
  EXPECT(usual[g][ENTRY] + usual[g][LOG_ARGS_ENTRY] + usual[g][EXIT] == 0, "f_logged: usual");
  int32_t t = id_of((void *)f_tail);
  nlogged = 0;
  EXPECT(CALL(f_tail)(1) == 10, "f_tail result");
  /* f_tail's entry, then f_tail_callee's entry and exit (no bits: usual). */
  EXPECT(nlogged == 1 && logged[0].id == t && logged[0].type == XR_T_ENTRY &&
             logged[0].r.gpr[0] == 1,
         "f_tail: %d records", nlogged);
  /* x86-64: kind TAIL; AArch64: kind EXIT (clang's), kept usual all the same. */
  EXPECT(usual[t][TAIL] + usual[t][EXIT] == 1 && usual[t][ENTRY] == 0, "f_tail: usual %llu+%llu",
         (unsigned long long)usual[t][TAIL], (unsigned long long)usual[t][EXIT]);
  printf("per-sled choice: %s\n", failures > before ? "FAILED" : "ok");
}

NOX static void test_no_hook(void) {
  int before = failures;
  memset(usual, 0, sizeof usual);
  xr_args_hook = NULL;
  nlogged = 0;
  long got = CALL(f_int6)(1, 2, 4, 8, 16, 32);
  long double ld = CALL(f_ret_ld)(-1.0L);
  xr_args_hook = hook;
  EXPECT(got == 63 && ld == 1.0L && nlogged == 0, "no hook: %ld, %d records", got, nlogged);
  int32_t id = id_of((void *)f_int6);
  EXPECT(usual[id][ENTRY] + usual[id][EXIT] == 0, "no hook: the usual handler was called");
  printf("no hook: %s\n", failures > before ? "FAILED" : "ok");
}

NOX static void set_want(void *const *fns, const uint8_t *bits, size_t n) {
  size_t count = __xray_max_function_id();
  uint8_t *want = calloc(count, 1);
  for (size_t i = 0; i < n; i++)
    want[id_of(fns[i]) - 1] = bits[i];
  int s = xr_patch_set_args(0, want, count);
  free(want);
  if (s != SUCCESS) {
    printf("xr_patch_set_args: %d\n", s);
    exit(2);
  }
}

NOX int main(int argc, char **argv) {
  const uint8_t B = XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT;
  if (argc > 1 && strcmp(argv[1], "gdb") == 0) {
    void *fns[] = {(void *)gdb_entry, (void *)gdb_exit};
    uint8_t bits[] = {XR_ARGS_AT_ENTRY, XR_ARGS_AT_EXIT};
    set_want(fns, bits, 2);
    xr_args_hook = gdb_hook;
    __xray_patch();
    return CALL(gdb_entry)(1) + CALL(gdb_exit)(1) == 5 ? 0 : 1;
  }
  void *fns[] = {(void *)f_int6,     (void *)f_dbl8,        (void *)f_flt,
                 (void *)f_mixed,    (void *)f_struct_l,    (void *)f_struct_d,
                 (void *)f_ret_l2,   (void *)f_ret_int,     (void *)f_ret_ld,
                 (void *)f_logged,   (void *)f_entry_only,  (void *)f_exit_only,
                 (void *)f_tail,
#if defined(__x86_64__)
                 f_vec_fn,           f_vec512_fn,
#else
                 (void *)f_int8,
#endif
  };
  uint8_t bits[sizeof fns / sizeof fns[0]];
  memset(bits, B, sizeof bits);
  bits[10] = XR_ARGS_AT_ENTRY; /* f_entry_only */
  bits[11] = XR_ARGS_AT_EXIT;  /* f_exit_only */
  xr_args_hook = hook;
  __xray_set_handler(usual_handler);
  set_want(fns, bits, sizeof fns / sizeof fns[0]);
  if (__xray_patch() != SUCCESS)
    return 2;
  test_ints();
  test_doubles();
  test_structs();
  test_long_double();
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx"))
    test_vec();
  else
    printf("__m256d (ymm kept whole): ok\n");
  if (__builtin_cpu_supports("avx512f"))
    test_vec512();
  else
    printf("__m512d (zmm kept whole): ok\n");
#endif
  test_choice();
  test_no_hook();
  /* Bits cleared: every sled back on the usual trampolines. */
  int before = failures;
  set_want(fns, (uint8_t[sizeof fns / sizeof fns[0]]){0}, sizeof fns / sizeof fns[0]);
  memset(usual, 0, sizeof usual);
  nlogged = 0;
  EXPECT(CALL(f_int6)(1, 2, 3, 4, 5, 6) == 7, "after clearing: result");
  int32_t id = id_of((void *)f_int6);
  EXPECT(nlogged == 0 && usual[id][ENTRY] == 1 && usual[id][EXIT] == 1,
         "after clearing: %d records, usual %llu/%llu", nlogged,
         (unsigned long long)usual[id][ENTRY], (unsigned long long)usual[id][EXIT]);
  printf("cleared: %s\n", failures > before ? "FAILED" : "ok");
  return failures != 0;
}
