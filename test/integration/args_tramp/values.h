/* What values.c shares with the vector tests (vec_avx.c, vec_avx512.c,
 * compiled with -mavx / -mavx512f so that their vector arguments travel
 * in ymm / zmm registers). */
#ifndef ARGS_TRAMP_VALUES_H
#define ARGS_TRAMP_VALUES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dispatch/hot_tables.h" /* runtime-internal: xr_args_hook */

#define NOX __attribute__((xray_never_instrument, noinline))
#define FN __attribute__((xray_always_instrument, noinline))

/* What the hook saw, per thread: one record per event. */
struct rec {
  int32_t id;
  int type;
  struct xr_arg_regs r;
};
extern __thread struct rec logged[8];
extern __thread int nlogged;

extern int failures;
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("  MISMATCH (%s:%d): ", __func__, __LINE__);                      \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* The log of one call of fn: an entry record first when `entry`, an exit
 * record last when `exit`, nothing else. */
const struct rec *expect_log(const char *name, void *fn, int entry, int exit);

static inline uint64_t bits_d(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* Calls go through a pointer the compiler cannot see through, so it
 * folds no argument or result. */
static inline __attribute__((always_inline)) void *opaque(void *p) {
  __asm__("" : "+r"(p));
  return p;
}
#define CALL(fn) ((__typeof__(&fn))opaque((void *)fn))

/* x86-64: vec_avx.c and vec_avx512.c, their test and function. */
void test_vec(void);
void test_vec512(void);
extern void *const f_vec_fn, *const f_vec512_fn;

#endif
