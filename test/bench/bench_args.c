/* What capturing values costs per call (args_bench.sh runs it): FDR started
 * from code (as compiler-rt requires), every function patched, then for
 * each row the fastest of BLOCKS blocks of CALLS calls, in ns per call (an
 * entry and an exit). Rows: the six-argument function with no SPEC (its
 * sleds on the usual trampolines), with SPECs keeping 1, 3 and 6 of its
 * arguments, with its 6 arguments and its return value; a string argument;
 * and compiler-rt's way, a function marked xray_log_args(1). Against
 * compiler-rt only the rows it has run (no SPEC, xray_log_args).
 * Prints "ROW ns" lines. Not instrumented itself.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

long bench_f6(long, long, long, long, long, long);
long bench_logged(long);
long bench_str(const char *);
/* Ours only: a weak reference, so the same object links with compiler-rt. */
int __xray_args_set(const char *spec) __attribute__((weak));

enum { CALLS = 100000, BLOCKS = 30 };

__attribute__((noinline)) static void timed_f6(long n) {
  for (long i = 0; i < n; i++)
    bench_f6(i, 2, 3, 4, 5, 6);
}
__attribute__((noinline)) static void timed_logged(long n) {
  for (long i = 0; i < n; i++)
    bench_logged(i);
}
static const char *const text = "a string of some thirty bytes.";
__attribute__((noinline)) static void timed_str(long n) {
  for (long i = 0; i < n; i++)
    bench_str(text);
}

static double fastest(void (*loop)(long)) {
  loop(1000); /* per-thread set-up outside the blocks */
  double best = 1e30;
  for (int b = 0; b < BLOCKS; b++) {
    double t0 = now_ns();
    loop(CALLS);
    double ns = (now_ns() - t0) / CALLS;
    best = ns < best ? ns : best;
  }
  return best;
}

/* argv: none, every row timed; or ROW CALLS: only that row, CALLS calls
 * once (after the same 1,000 of set-up), untimed, for callgrind. */
static const char *only;
static long only_calls;

static void row(const char *name, const char *spec, void (*loop)(long)) {
  if (only != NULL && strcmp(only, name) != 0)
    return;
  if (spec != NULL) {
    if (__xray_args_set == NULL)
      return;
    if (__xray_args_set(spec) != 0) {
      fprintf(stderr, "bench_args: SPEC '%s' refused\n", spec);
      exit(1);
    }
  }
  if (only != NULL) {
    loop(1000);
    loop(only_calls);
  } else {
    printf("%s %.2f\n", name, fastest(loop));
  }
  if (spec != NULL)
    __xray_args_set("");
}

int main(int argc, char **argv) {
  if (argc == 3) {
    only = argv[1];
    only_calls = atol(argv[2]);
  }
  const char *cfg = getenv("BENCH_ARGS_FDR");
  if (__xray_log_select_mode("xray-fdr") != XRAY_REGISTRATION_OK ||
      __xray_log_init_mode("xray-fdr", cfg ? cfg : "func_duration_threshold_us=0") !=
          XRAY_LOG_INITIALIZED ||
      __xray_patch() != SUCCESS) {
    fprintf(stderr, "bench_args: FDR did not start\n");
    return 1;
  }
  row("no-spec", NULL, timed_f6);
  row("log_args(1)", NULL, timed_logged);
  row("1-value", "bench_f6@arg1", timed_f6);
  row("3-values", "bench_f6@arg1,arg2,arg3", timed_f6);
  row("6-values", "bench_f6@arg1,arg2,arg3,arg4,arg5,arg6", timed_f6);
  row("6+retval", "bench_f6@arg1,arg2,arg3,arg4,arg5,arg6,retval", timed_f6);
  row("string", "bench_str@arg1/s", timed_str);
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
