/* libhostlib.so, linked by the uninstrumented host (host.c). */
__attribute__((noinline)) int lib_mul(int x) { return x * 3; }
__attribute__((noinline)) int lib_add(int x) { return lib_mul(x) + 1; }
