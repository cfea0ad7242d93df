/* XRAY_OPTIONS end to end: a user mode named by xray_mode registers from a
 * constructor; with patch_premain it is started and sees events from the
 * first line of main. Built with -DWITH_DEFAULTS the program supplies
 * __xray_default_options(); the environment wins over it. */
#include <stdio.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NEVER __attribute__((xray_never_instrument))

static int events, inits;
static char config[32] = "(none)";

NEVER static XRayLogInitStatus c_init(size_t b, size_t m, void *cfg, size_t n) {
  (void)b, (void)m, (void)n;
  inits++;
  snprintf(config, sizeof config, "'%s'", cfg ? (const char *)cfg : "(null)");
  return XRAY_LOG_INITIALIZED;
}
NEVER static XRayLogInitStatus c_finalize(void) { return XRAY_LOG_FINALIZED; }
NEVER static void c_handle(int32_t id, XRayEntryType t) {
  (void)id;
  if (t == ENTRY)
    events++;
}
NEVER static XRayLogFlushStatus c_flush(void) { return XRAY_LOG_FLUSHED; }

NEVER __attribute__((constructor)) static void reg(void) {
  struct XRayLogImpl impl = {c_init, c_finalize, c_handle, c_flush};
  __xray_log_register_mode("counter", impl);
}

#ifdef WITH_DEFAULTS
NEVER const char *__xray_default_options(void) {
  return "patch_premain=true:xray_mode=counter";
}
#endif

__attribute__((xray_always_instrument, noinline)) void work(void) {
  __asm__ volatile("");
}

NEVER int main(void) {
  work();
  work();
  work();
  const char *mode = __xray_log_get_current_mode();
  printf("mode %s, inits %d, config %s, events %d\n", mode ? mode : "(none)",
         inits, config, events);
  return 0;
}
