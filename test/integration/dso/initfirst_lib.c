/* libinitfirst.so: linked with -z initfirst (initfirst.sh). */
__attribute__((noinline)) int lib_fn(int x) {
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}
