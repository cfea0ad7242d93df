/* crash_trace's plugin: a shared object loaded with dlopen after FDR
 * started, so its names reach a crash's trace only if they were made
 * ready at its registration. */
static volatile int plug_sink;
__attribute__((noinline)) int plug_leaf(int x) { return x ^ plug_sink; }
__attribute__((noinline)) int plug_work(int x) { return plug_leaf(x) + 1; }
