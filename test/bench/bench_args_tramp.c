/* The argument trampolines' cost, against the usual full path, in one
 * binary (test/bench/args_tramp_bench.sh builds and runs it):
 *   A unpatched    ns per call of an instrumented two-argument function
 *                  whose sleds are not patched;
 *   A full-noop    patched, a user's no-op handler (__xray_set_handler):
 *                  the usual trampolines' full path, entry and exit;
 *   A args-noop    patched with want bits (entry and exit): the argument
 *                  trampolines, a hook that returns at once;
 *   A args-nohook  the same with no hook (what the trampolines cost alone);
 * the fastest of RUNS blocks of CALLS calls each, the modes interleaved.
 * Then, on the generated program of many functions (many.o, as the patch
 * scenario of run.sh), ms:
 *   P repatch       the fastest of 15 __xray_patch() after the first, no
 *                   want bits;
 *   P repatch-args  the same with every function's bits set (entry, exit);
 *   P retarget      the fastest xr_patch_set_args that sends every patched
 *                   function's sleds to the argument trampolines or back.
 * Checks that each mode really took its path (handler and hook counts).
 * With a mode's number as argument (0-3, in the order above) it only makes
 * COUNTED calls in that mode, in counted_calls(), for callgrind's
 * --toggle-collect (args_tramp_bench.sh --callgrind).
 * SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"
#include "core/dispatch/hot_tables.h" /* runtime-internal: xr_args_hook */
#include "core/patch/patch_api.h"     /* xr_patch_set_args */
#include "xray/xray_interface.h"

extern int (*const many_table[])(int);
extern const int many_count;

#define CALLS 2000000
#define RUNS 7
#define NOX __attribute__((xray_never_instrument, noinline))

__attribute__((xray_always_instrument, noinline)) long bench_fn(long a, long b) {
  return a + b;
}
static long (*volatile fn)(long, long) = bench_fn;

static long handler_events, hook_events;
NOX static void noop_handler(int32_t id, XRayEntryType type) {
  (void)id, (void)type;
  handler_events++;
}
NOX static void noop_hook(int32_t id, int type, const struct xr_arg_regs *r) {
  (void)id, (void)type, (void)r;
  hook_events++;
}

static int32_t bench_id;
static uint8_t *want;
static size_t count;
NOX static void set_bits(int32_t id, uint8_t bits) {
  if (id > 0)
    want[id - 1] = bits;
  if (xr_patch_set_args(0, want, count) != SUCCESS) {
    printf("F xr_patch_set_args failed\n");
    exit(1);
  }
}

NOX static double block(void) {
  long s = 0;
  double t0 = now_ns();
  for (long i = 0; i < CALLS; i++)
    s += fn(i, 1);
  double t = (now_ns() - t0) / CALLS;
  if (s == 42)
    printf("(impossible)\n");
  return t;
}

#define COUNTED 100000
NOX long counted_calls(void) {
  long s = 0;
  for (long i = 0; i < COUNTED; i++)
    s += fn(i, 1);
  return s;
}

enum { UNPATCHED, FULL_NOOP, ARGS_NOOP, ARGS_NOHOOK, MODES };
static const char *const names[MODES] = {"unpatched", "full-noop", "args-noop", "args-nohook"};

NOX static void enter(int mode) {
  __xray_unpatch();
  __xray_remove_handler();
  xr_args_hook = mode == ARGS_NOHOOK ? NULL : noop_hook;
  set_bits(bench_id, mode == ARGS_NOOP || mode == ARGS_NOHOOK
                         ? XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT : 0);
  if (mode == FULL_NOOP)
    __xray_set_handler(noop_handler);
  if (mode != UNPATCHED)
    __xray_patch();
}

NOX int main(int argc, char **argv) {
  count = __xray_max_function_id();
  want = calloc(count, 1);
  for (size_t id = 1; id <= count; id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)bench_fn)
      bench_id = (int32_t)id;
  if (argc > 1) {
    enter(atoi(argv[1]) % MODES);
    return counted_calls() == 42;
  }
  double best[MODES];
  for (int m = 0; m < MODES; m++)
    best[m] = 1e300;
  for (int r = 0; r < RUNS; r++)
    for (int m = 0; m < MODES; m++) {
      enter(m);
      block(); /* warm-up */
      handler_events = hook_events = 0;
      double t = block();
      best[m] = t < best[m] ? t : best[m];
      long want_handler = m == FULL_NOOP ? 2L * CALLS : 0;
      long want_hook = m == ARGS_NOOP ? 2L * CALLS : 0;
      if (handler_events != want_handler || hook_events != want_hook) {
        printf("F %s: %ld handler, %ld hook events\n", names[m], handler_events, hook_events);
        return 1;
      }
    }
  for (int m = 0; m < MODES; m++)
    printf("A %s %.2f\n", names[m], best[m]);

  enter(UNPATCHED);
  double repatch[2] = {1e300, 1e300}, retarget = 1e300;
  for (int args = 0; args < 2; args++) {
    for (size_t i = 0; i < count; i++)
      want[i] = args ? XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT : 0;
    set_bits(0, 0);
    for (int r = 0; r < 16; r++) {
      double t0 = now_ns();
      __xray_patch();
      double t = (now_ns() - t0) / 1e6;
      if (r > 0 && t < repatch[args])
        repatch[args] = t;
      __xray_unpatch();
    }
  }
  for (size_t i = 0; i < count; i++)
    want[i] = 0;
  set_bits(0, 0);
  __xray_patch();
  for (int r = 0; r < 16; r++) { /* every call changes every function's bits */
    for (size_t i = 0; i < count; i++)
      want[i] = r & 1 ? 0 : XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT;
    double t0 = now_ns();
    set_bits(0, 0);
    double t = (now_ns() - t0) / 1e6;
    retarget = t < retarget ? t : retarget;
  }
  long s = 0;
  for (int i = 0; i < many_count; i++)
    s += many_table[i](i);
  printf("P functions %zu\n", count);
  printf("P repatch %.3f\n", repatch[0]);
  printf("P repatch-args %.3f\n", repatch[1]);
  printf("P retarget %.3f\n", retarget);
  return s == 42;
}
