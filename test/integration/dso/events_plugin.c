/* A shared object with custom and typed event sleds (their calls go to the
 * executable's __xray_CustomEvent / __xray_TypedEvent through the PLT). */
#include <stddef.h>
#include <xray/xray_interface.h>

__attribute__((xray_always_instrument, noinline)) int plugin_events(int x) {
  static const char msg[] = "plugin";
  __xray_customevent(msg, sizeof msg - 1);
  __xray_typedevent(7, msg, 3);
  return x + 1;
}
