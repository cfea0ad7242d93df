/* The shared object of mapped.c: its function's FDR id is a dense id that
 * only the trace's .map names. */
__attribute__((noinline)) int lib_fn(int x) { return x * 3; }
