/* The shared object of dso.c: one function whose values are captured
 * through the object's near stub page, one that never has bits. */
#define FN __attribute__((xray_always_instrument, noinline))

FN long lib_fn(long a, double x) { return a * 2 + (long)x; }
FN long lib_plain(long a) { return a - 1; }
