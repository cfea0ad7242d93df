/* The public headers in strict C11: every type usable with and without its
 * tag, every function declared with a prototype. */
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
#include <xray/xray_records.h>
#include <xray/xray_version.h>

#include <stddef.h>
#include <string.h>

static void h0(int32_t id, XRayEntryType t) { (void)id; (void)t; }
static void h1(int32_t id, enum XRayEntryType t, uint64_t a) { (void)id; (void)t; (void)a; }
static void hc(void *p, size_t n) { (void)p; (void)n; }
static void ht(uint16_t t, const void *p, size_t n) { (void)t; (void)p; (void)n; }
static XRayLogInitStatus init(size_t a, size_t b, void *c, size_t d) {
  (void)a; (void)b; (void)c; (void)d;
  return XRAY_LOG_INITIALIZED;
}
static enum XRayLogInitStatus fin(void) { return XRAY_LOG_FINALIZED; }
static XRayLogFlushStatus flush(void) { return XRAY_LOG_FLUSHED; }
static struct XRayBuffer next(XRayBuffer b) { b.Data = NULL; b.Size = 0; return b; }
static void process(const char *mode, struct XRayBuffer b) { (void)mode; (void)b; }

int main(void) {
  enum XRayEntryType kinds[] = {ENTRY, EXIT, TAIL, LOG_ARGS_ENTRY, CUSTOM_EVENT, TYPED_EVENT};
  enum XRayPatchingStatus s = NOT_INITIALIZED;
  XRayPatchingStatus s2 = SUCCESS;
  int ok = (int)kinds[5] == 5 && s == 0 && s2 == 1 && ONGOING == 2 && FAILED == 3;
  ok &= __xray_set_handler(h0) >= 0 && __xray_remove_handler() >= 0;
  ok &= __xray_set_handler_arg1(h1) >= 0 && __xray_remove_handler_arg1() >= 0;
  ok &= __xray_set_customevent_handler(hc) >= 0 && __xray_remove_customevent_handler() >= 0;
  ok &= __xray_set_typedevent_handler(ht) >= 0 && __xray_remove_typedevent_handler() >= 0;
  uint16_t type = __xray_register_event_type("t");
  XRayPatchingStatus (*patchers[])(void) = {__xray_patch, __xray_unpatch};
  XRayPatchingStatus (*one[])(int32_t) = {__xray_patch_function, __xray_unpatch_function};
  XRayPatchingStatus (*range[])(int32_t, int32_t) = {__xray_patch_function_range,
                                                     __xray_unpatch_function_range};
  uintptr_t a = __xray_function_address(1);
  size_t max = __xray_max_function_id();
  void (*init_fn)(void) = __xray_init;

  struct XRayLogImpl impl = {init, fin, h0, flush};
  XRayLogImpl impl2 = impl;
  enum XRayLogRegisterStatus r = __xray_log_register_mode("c11-mode", impl2);
  XRayLogRegisterStatus r2 = __xray_log_select_mode("c11-mode");
  const char *mode = __xray_log_get_current_mode();
  __xray_set_log_impl(impl);
  XRayLogInitStatus i = __xray_log_init(0, 0, NULL, 0);
  i = __xray_log_init_mode("c11-mode", "");
  i = __xray_log_init_mode_bin("c11-mode", "", 0);
  i = __xray_log_finalize();
  enum XRayLogFlushStatus f = __xray_log_flushLog();
  __xray_log_set_buffer_iterator(next);
  f = __xray_log_process_buffers(process);
  __xray_log_remove_buffer_iterator();
  __xray_remove_log_impl();
  struct XRayFileHeader header;
  struct XRayRecord record;
  struct XRayArgPayload payload;
  ok &= sizeof header == 32 && sizeof record == 32 && sizeof payload == 32;
  ok &= strcmp(__xray_runtime_version(), XRAY_RUNTIME_VERSION) == 0;
  long number = XRAY_RUNTIME_VERSION_NUMBER;
  ok &= number == XRAY_RUNTIME_VERSION_ENCODE(XRAY_RUNTIME_VERSION_MAJOR,
                                              XRAY_RUNTIME_VERSION_MINOR,
                                              XRAY_RUNTIME_VERSION_PATCH);
  (void)type; (void)patchers; (void)one; (void)range; (void)a; (void)max; (void)init_fn;
  (void)r; (void)r2; (void)mode; (void)i; (void)f;
  return !ok;
}
