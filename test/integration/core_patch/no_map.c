/* A program without an instrumentation map, and no instrumented shared
 * object: the runtime initialises with object 0 empty (a host waiting for
 * objects), so every patching call answers "not initialised" (no object has
 * a sled, compiler-rt 20's status), handlers are accepted and never called,
 * nothing crashes. */
#include <stdio.h>
#include <xray/xray_interface.h>

static int calls;
static void handler(int32_t id, XRayEntryType t) { (void)id, (void)t, calls++; }

int main(void) {
  int ok = 1;
  ok &= __xray_set_handler(handler) == 1;
  ok &= __xray_set_customevent_handler(0) == 1;
  ok &= __xray_num_objects() == 1;
  ok &= __xray_patch() == NOT_INITIALIZED;
  ok &= __xray_unpatch() == NOT_INITIALIZED;
  ok &= __xray_patch_object(0) == NOT_INITIALIZED;
  ok &= __xray_patch_function(1) == NOT_INITIALIZED;
  ok &= __xray_unpatch_function(1) == NOT_INITIALIZED;
  ok &= __xray_patch_function_range(1, 2) == NOT_INITIALIZED;
  ok &= __xray_max_function_id() == 0;
  ok &= __xray_function_address(1) == 0;
  __xray_init(); /* again: harmless */
  ok &= __xray_patch() == NOT_INITIALIZED;
  ok &= calls == 0;
  ok &= __xray_remove_handler() == 1;
  printf("%s\n", ok ? "ok" : "BAD");
  fflush(stdout); /* no_map.sh checks XRay's lines come before this one */
  return !ok;
}
