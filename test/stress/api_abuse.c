/* API abuse: every public call made in the wrong order or with bad
 * arguments must return a documented status and never crash, and the
 * runtime must still work normally afterwards.
 *
 * argv[1]: a built-in mode name, or "none" (the mode-free checks only). The program ends with one clean
 * init -> work -> finalize -> flush cycle; the script reads its file. */
#include "stress.h"

WORK int work(int x) { return x * 5 + 1; }
WORK int outer(int x) { return work(x) + work(x + 1); }

static long buffers_seen;
NOINST static void count_buffer(const char *mode, XRayBuffer b) {
  (void)mode;
  CHECK(b.Data != NULL || b.Size == 0, "buffer with size %zu and no data", b.Size);
  buffers_seen++;
}
NOINST static XRayBuffer empty_iterator(XRayBuffer b) {
  (void)b;
  return (XRayBuffer){NULL, 0};
}

static XRayLogInitStatus null_init(size_t a, size_t b, void *c, size_t d) {
  (void)a; (void)b; (void)c; (void)d;
  return XRAY_LOG_INITIALIZED;
}
static XRayLogInitStatus null_fin(void) { return XRAY_LOG_FINALIZED; }
static void null_handle(int32_t id, XRayEntryType t) { (void)id; (void)t; }
static XRayLogFlushStatus null_flush(void) { return XRAY_LOG_FLUSHED; }

NOINST static bool valid_init_status(XRayLogInitStatus s) {
  return s >= XRAY_LOG_UNINITIALIZED && s <= XRAY_LOG_FINALIZED;
}
NOINST static bool valid_flush_status(XRayLogFlushStatus s) {
  return s >= XRAY_LOG_NOT_FLUSHING && s <= XRAY_LOG_FLUSHED;
}

NOINST static void ids_out_of_range(void) {
  const int32_t max = (int32_t)__xray_max_function_id();
  const int32_t bad[] = {0, -1, max + 1, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(__xray_patch_function(bad[i]) == FAILED, "patch_function(%d)", bad[i]);
    CHECK(__xray_unpatch_function(bad[i]) == FAILED, "unpatch_function(%d)", bad[i]);
    CHECK(__xray_function_address(bad[i]) == 0, "function_address(%d)", bad[i]);
  }
}

NOINST static void registry_abuse(void) {
  XRayLogImpl good = {null_init, null_fin, null_handle, null_flush};
  XRayLogImpl holey = {null_init, NULL, null_handle, null_flush};
  CHECK(__xray_log_register_mode(NULL, good) == XRAY_INCOMPLETE_IMPL, "NULL name");
  CHECK(__xray_log_register_mode("abuse-holey", holey) == XRAY_INCOMPLETE_IMPL,
        "NULL member");
  CHECK(__xray_log_register_mode("abuse-good", good) == XRAY_REGISTRATION_OK, "register");
  CHECK(__xray_log_register_mode("abuse-good", good) == XRAY_DUPLICATE_MODE, "duplicate");
  CHECK(__xray_log_select_mode(NULL) == XRAY_MODE_NOT_FOUND, "select NULL");
  CHECK(__xray_log_select_mode("") == XRAY_MODE_NOT_FOUND, "select empty");
  CHECK(__xray_log_select_mode("no-such-mode") == XRAY_MODE_NOT_FOUND, "select unknown");
  CHECK(__xray_log_init_mode("no-such-mode", "") == XRAY_LOG_UNINITIALIZED,
        "init unknown mode");
  CHECK(__xray_log_init_mode(NULL, "") == XRAY_LOG_UNINITIALIZED, "init NULL mode");
  CHECK(__xray_log_init_mode_bin(NULL, NULL, 0) == XRAY_LOG_UNINITIALIZED,
        "init_bin NULL mode");
  /* Nothing selected or initialised yet: */
  CHECK(__xray_log_finalize() == XRAY_LOG_UNINITIALIZED, "finalize before init");
  CHECK(__xray_log_flushLog() == XRAY_LOG_NOT_FLUSHING, "flush before init");
  CHECK(__xray_log_process_buffers(count_buffer) == XRAY_LOG_NOT_FLUSHING,
        "process_buffers without a mode");
  CHECK(__xray_log_process_buffers(NULL) == XRAY_LOG_NOT_FLUSHING,
        "process_buffers(NULL) without a mode");
  /* A half-empty impl clears everything; removing twice is harmless. */
  __xray_set_log_impl(holey);
  __xray_remove_log_impl();
  __xray_remove_log_impl();
  __xray_log_remove_buffer_iterator();
  __xray_log_remove_buffer_iterator();
  CHECK(__xray_log_init(0, 0, NULL, 0) == XRAY_LOG_UNINITIALIZED, "init without impl");
}

NOINST static void handler_abuse(void) {
  CHECK(__xray_set_handler(NULL) == 1, "set_handler(NULL)");
  CHECK(__xray_remove_handler() == 1, "remove_handler");
  CHECK(__xray_remove_handler() == 1, "remove_handler twice");
  CHECK(__xray_remove_handler_arg1() == 1, "remove_handler_arg1");
  CHECK(__xray_remove_customevent_handler() == 1, "remove custom");
  CHECK(__xray_remove_typedevent_handler() == 1, "remove typed");
  uint16_t a = __xray_register_event_type("abuse");
  uint16_t b = __xray_register_event_type(NULL);
  CHECK(a != b, "event types of distinct descriptors must differ");
}

NOINST static void mode_abuse(const char *mode) {
  XRayLogImpl good = {null_init, null_fin, null_handle, null_flush};
  CHECK(__xray_log_register_mode(mode, good) == XRAY_DUPLICATE_MODE,
        "a user mode may not replace a built-in one");
  CHECK(__xray_log_init_mode(mode, NULL) == XRAY_LOG_UNINITIALIZED, "NULL config");
  /* A mode that was never initialised: */
  XRayLogInitStatus f = __xray_log_finalize();
  CHECK(f == XRAY_LOG_UNINITIALIZED, "finalize before init: %d", (int)f);
  CHECK(__xray_log_flushLog() == XRAY_LOG_NOT_FLUSHING, "flush before init");

  for (int cycle = 0; cycle < 3; cycle++) {
    XRayLogInitStatus s = __xray_log_init_mode(mode, stress_default_config(mode));
    CHECK(s == XRAY_LOG_INITIALIZED, "cycle %d: init %d", cycle, (int)s);
    s = __xray_log_init_mode(mode, stress_default_config(mode));
    CHECK(s == XRAY_LOG_INITIALIZED, "cycle %d: init twice %d", cycle, (int)s);
    s = __xray_log_init_mode_bin(mode, "garbage=1 ::", 3);
    CHECK(valid_init_status(s), "init_bin while initialised: %d", (int)s);
    CHECK(__xray_log_flushLog() == XRAY_LOG_NOT_FLUSHING, "flush before finalize");
    __xray_patch();
    USE(outer(cycle));
    __xray_unpatch();
    f = __xray_log_finalize();
    CHECK(f == XRAY_LOG_FINALIZED, "finalize %d", (int)f);
    f = __xray_log_finalize();
    CHECK(f == XRAY_LOG_FINALIZED, "finalize twice %d", (int)f);
    buffers_seen = 0;
    CHECK(__xray_log_process_buffers(count_buffer) == XRAY_LOG_FLUSHED, "process");
    __xray_log_set_buffer_iterator(empty_iterator);
    CHECK(__xray_log_process_buffers(count_buffer) == XRAY_LOG_FLUSHED, "empty iterator");
    __xray_log_remove_buffer_iterator();
    CHECK(__xray_log_process_buffers(count_buffer) == XRAY_LOG_FLUSHED,
          "process without an iterator");
    XRayLogFlushStatus fl = __xray_log_process_buffers(NULL);
    CHECK(valid_flush_status(fl), "process_buffers(NULL): %d", (int)fl);
    fl = __xray_log_flushLog();
    CHECK(fl == XRAY_LOG_FLUSHED, "flush %d", (int)fl);
    fl = __xray_log_flushLog();
    CHECK(valid_flush_status(fl), "flush twice %d", (int)fl);
  }
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: %s MODE", argv[0]);
  const char *mode = argv[1];
  ids_out_of_range();
  registry_abuse();
  handler_abuse();
  if (stress_is_mode(mode))
    mode_abuse(mode);
  /* The last cycle's file is the one the script reads; work still runs. */
  CHECK(outer(3) == work(3) + work(4), "workload");
  printf("api_abuse %s: ok\n", mode);
  return 0;
}
