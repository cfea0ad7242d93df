/* The plugin of args_dso.c. */
volatile long plugin_sink;
__attribute__((noinline)) long plug_fn(long x, const char *s) {
  plugin_sink = x + s[0];
  return x + 1000;
}
