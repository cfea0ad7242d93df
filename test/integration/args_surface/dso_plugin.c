/* The shared object of args_surface.dso: functions a SPEC names before
 * the object is loaded. */
__attribute__((noinline)) long plugin_fn(long a, const char *s) { return a * 2 + s[0]; }
__attribute__((noinline)) long plugin_other(long a) { return a + 1; }
