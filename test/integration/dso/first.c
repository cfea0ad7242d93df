/* libfirst.so, linked by the program; depends on libsecond.so. */
int second_mul(int x);
__attribute__((noinline)) int first_add(int x) { return second_mul(x) + 1; }
__attribute__((noinline)) int first_other(int x) { return x - 1; }
