/* An instrumented shared object built with XRay::xray_dso (or pkg-config
 * xray-dso), loaded by app_plugin with dlopen. */
__attribute__((xray_always_instrument, noinline)) int plugin_twice(int x) { return 2 * x; }
