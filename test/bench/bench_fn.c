/* The workload: tiny functions whose only cost is their XRay sleds.
 *
 * Compiled twice from this one source: with -fxray-instrument (names as
 * written) and without it, -DBENCH_PLAIN (names end in _plain), so the
 * unpatched-sled scenario can compare a sled against no sled at all. Kept in
 * its own file so the driver cannot inline them.
 * SPDX-License-Identifier: MIT */

#ifdef BENCH_PLAIN
#define NAME(n) n##_plain
#else
#define NAME(n) n
#endif

/* noinline: every call must be a real call with real sleds.
 * disable_tail_calls: the chain below must return through EXIT sleds.
 * aligned(64): both links place these at the same offset in a cache line
 * (the runtimes' different PLT sizes shift .text otherwise, and that alone
 * moved the unpatched-sled figure by 15% on a Zen 3). */
#define BENCH_FN                                                               \
  __attribute__((noinline, xray_always_instrument, disable_tail_calls,         \
                 aligned(64)))

BENCH_FN int NAME(bench_leaf)(int x) { return x * 3 + 1; }

/* A depth-5 call tree for profiling: tree -> chain2 -> ... -> chain5. The
 * loop itself is the instrumented root: compiler-rt's profiling mode makes a
 * new root node for every entry into an empty call stack, so a root called
 * over and over from uninstrumented code exhausts its allocator after a few
 * dozen calls and drops every later event. */
BENCH_FN int NAME(bench_chain5)(int x) { return x + 5; }
BENCH_FN int NAME(bench_chain4)(int x) { return NAME(bench_chain5)(x) * 2 + 4; }
BENCH_FN int NAME(bench_chain3)(int x) { return NAME(bench_chain4)(x) * 2 + 3; }
BENCH_FN int NAME(bench_chain2)(int x) { return NAME(bench_chain3)(x) * 2 + 2; }
BENCH_FN long NAME(bench_tree)(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += NAME(bench_chain2)((int)i);
  return s;
}
