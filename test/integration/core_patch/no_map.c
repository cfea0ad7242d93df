/* A program without an instrumentation map: the runtime stays
 * uninitialised, every call answers "not initialised", nothing crashes. */
#include <stdio.h>
#include <xray/xray_interface.h>

static void handler(int32_t id, XRayEntryType t) { (void)id; (void)t; }

int main(void) {
  int ok = 1;
  ok &= __xray_patch() == NOT_INITIALIZED;
  ok &= __xray_unpatch() == NOT_INITIALIZED;
  ok &= __xray_patch_function(1) == NOT_INITIALIZED;
  ok &= __xray_unpatch_function(1) == NOT_INITIALIZED;
  ok &= __xray_patch_function_range(1, 2) == NOT_INITIALIZED;
  ok &= __xray_set_handler(handler) == 0;
  ok &= __xray_remove_handler() == 0;
  ok &= __xray_set_customevent_handler(0) == 0;
  ok &= __xray_max_function_id() == 0;
  ok &= __xray_function_address(1) == 0;
  __xray_init(); /* again: harmless */
  ok &= __xray_patch() == NOT_INITIALIZED;
  printf("%s\n", ok ? "ok" : "BAD");
  return !ok;
}
