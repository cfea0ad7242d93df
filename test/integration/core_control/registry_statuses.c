/* Every status of the mode registry in every call order that matters,
 * printed one per line, with a user mode whose state machine follows the
 * built-in FDR mode's (compiler-rt's xray_fdr_logging.cpp). Built with -DSELECT_FIRST it runs
 * the flow compiler-rt requires, and its output must be the same with
 * compiler-rt's runtime as with ours. */
#include <stdio.h>
#include <string.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NEVER __attribute__((xray_never_instrument))

static XRayLogInitStatus state;
static int events;

NEVER static XRayLogInitStatus m_init(size_t b, size_t m, void *cfg, size_t n) {
  printf("  log_init(%zu, %zu, \"%s\", %zu)\n", b, m, cfg ? (char *)cfg : "(null)", n);
  if (state != XRAY_LOG_UNINITIALIZED)
    return state;
  return state = XRAY_LOG_INITIALIZED;
}
NEVER static XRayLogInitStatus m_finalize(void) {
  if (state != XRAY_LOG_INITIALIZED)
    return state;
  return state = XRAY_LOG_FINALIZED;
}
NEVER static void m_handle(int32_t id, XRayEntryType t) {
  (void)id;
  if (t == ENTRY)
    events++;
}
NEVER static XRayLogFlushStatus m_flush(void) {
  if (state != XRAY_LOG_FINALIZED)
    return XRAY_LOG_NOT_FLUSHING;
  state = XRAY_LOG_UNINITIALIZED;
  return XRAY_LOG_FLUSHED;
}

static int other_events;
NEVER static void o_handle(int32_t id, XRayEntryType t) {
  (void)id;
  if (t == ENTRY)
    other_events++;
}

static const struct XRayLogImpl impl = {m_init, m_finalize, m_handle, m_flush};

NEVER __attribute__((constructor)) static void reg(void) {
  printf("register in constructor: %d\n", __xray_log_register_mode("mine", impl));
}

NEVER static XRayBuffer two(XRayBuffer b) {
  static const char *data[] = {"first", "second"};
  if (!b.Data)
    return (XRayBuffer){data[0], 5};
  if (b.Data == data[0])
    return (XRayBuffer){data[1], 6};
  return (XRayBuffer){NULL, 0};
}
NEVER static void proc(const char *mode, XRayBuffer b) {
  printf("  buffer from %s: %.*s\n", mode ? mode : "(null)", (int)b.Size,
         (const char *)b.Data);
}

__attribute__((xray_always_instrument, noinline)) void work(void) {
  __asm__ volatile("");
}

#define SHOW(what, expr) printf("%s: %d\n", what, (int)(expr))

NEVER int main(void) {
  const char *cur = __xray_log_get_current_mode();
  printf("current at start: %s\n", cur ? cur : "(none)");
  SHOW("init with nothing selected", __xray_log_init(0, 0, 0, 0));
  SHOW("finalize with nothing selected", __xray_log_finalize());
  SHOW("flush with nothing selected", __xray_log_flushLog());
  SHOW("process_buffers with nothing selected", __xray_log_process_buffers(proc));
  SHOW("register again", __xray_log_register_mode("mine", impl));
  struct XRayLogImpl partial = impl;
  partial.log_finalize = NULL;
  SHOW("register incomplete", __xray_log_register_mode("partial", partial));
  SHOW("select unknown", __xray_log_select_mode("no-such-mode"));
  SHOW("init_mode unknown", __xray_log_init_mode("no-such-mode", ""));
  SHOW("init_mode NULL config", __xray_log_init_mode("mine", NULL));
  cur = __xray_log_get_current_mode();
  printf("current after failures: %s\n", cur ? cur : "(none)");

#ifdef SELECT_FIRST /* compiler-rt needs this; with it, both runtimes agree */
  SHOW("select", __xray_log_select_mode("mine"));
#endif
  SHOW("init_mode without select", __xray_log_init_mode("mine", "a=1"));
  printf("current: %s\n", __xray_log_get_current_mode());
  SHOW("init twice", __xray_log_init_mode("mine", "a=2"));
  SHOW("flush before finalize", __xray_log_flushLog());
  SHOW("patch", __xray_patch());
  work();
  work();
  SHOW("events seen by the mode", events);
  SHOW("finalize", __xray_log_finalize());
  SHOW("finalize twice", __xray_log_finalize());
  SHOW("process_buffers without iterator", __xray_log_process_buffers(proc));
  __xray_log_set_buffer_iterator(two);
  SHOW("process_buffers with iterator", __xray_log_process_buffers(proc));
  __xray_log_remove_buffer_iterator();
  SHOW("flush", __xray_log_flushLog());
  SHOW("flush twice", __xray_log_flushLog());
  SHOW("init after flush", __xray_log_init(7, 8, (void *)"x", 1));

  /* __xray_set_log_impl: another impl, same mode name, its handler. */
  struct XRayLogImpl other = impl;
  other.handle_arg0 = o_handle;
  __xray_set_log_impl(other);
  printf("current after set_log_impl: %s\n", __xray_log_get_current_mode());
  work();
  SHOW("events (old handler)", events);
  SHOW("events (new handler)", other_events);
  __xray_remove_log_impl();
  work();
  SHOW("events after remove_log_impl", events + other_events);
  SHOW("finalize after remove_log_impl", __xray_log_finalize());
  SHOW("select again", __xray_log_select_mode("mine"));
  work();
  SHOW("events after select again", events);
  struct XRayLogImpl none = {0, 0, 0, 0};
  __xray_set_log_impl(none);
  cur = __xray_log_get_current_mode();
  printf("current after set_log_impl(incomplete): %s\n", cur ? cur : "(none)");
  work();
  SHOW("events after incomplete impl", events);
  __xray_unpatch();
  return 0;
}
