/* The shared object of dso_bench.sh: the same function as bench_dso.c's
 * exe_fn, instrumented, in a .so linked with libxray-dso.a. */
__attribute__((noinline)) int dso_fn(int x) {
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}
