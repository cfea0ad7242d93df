/* The argument benchmark's workload (args_bench.sh), compiled once with
 * -fxray-instrument and linked with either runtime: a function of six
 * integer arguments, one that logs its first the compiler-rt way
 * (xray_log_args(1), fixed at compile time), and one that takes a string.
 * SPDX-License-Identifier: MIT */
volatile long bench_args_sink;

__attribute__((noinline, xray_always_instrument)) long bench_f6(long a, long b, long c, long d,
                                                               long e, long f) {
  bench_args_sink = a;
  return a + b + c + d + e + f;
}

__attribute__((noinline, xray_always_instrument, xray_log_args(1))) long bench_logged(long a) {
  bench_args_sink = a;
  return a + 1;
}

__attribute__((noinline, xray_always_instrument)) long bench_str(const char *s) {
  bench_args_sink = s[0];
  return s[1];
}
