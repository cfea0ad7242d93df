/* plugin.so, loaded with dlopen. */
__attribute__((noinline)) int plugin_leaf(int x) { return x ^ 5; }
__attribute__((noinline)) int plugin_fn(int x) { return plugin_leaf(x) + 2; }
