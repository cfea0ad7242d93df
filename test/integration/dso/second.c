/* libsecond.so: the end of a chain (libfirst.so depends on it). */
__attribute__((noinline)) int second_mul(int x) { return x * 3; }
