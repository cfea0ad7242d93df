// compiler-rt-style C++ users of the headers (as in the XRay docs and
// compiler-rt's tests): scoped enum spellings, tagged types, lambdas as
// processors, a mode registered as an XRayLogImpl aggregate. Built first
// against compiler-rt's own headers (proving it is their users' code), then
// against ours, in C++11, 14, 17 and 20, and run against ours.
#include <ctime> // compiler-rt's xray_records.h needs struct timespec declared
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"
#include "xray/xray_records.h"

#include <cassert>
#include <cstdint>
#include <cstdio>

static int events = 0;

[[clang::xray_never_instrument]] void handler(int32_t, XRayEntryType type) {
  if (type == XRayEntryType::ENTRY || type == XRayEntryType::EXIT)
    ++events;
}

volatile int sink;
[[clang::xray_always_instrument]] __attribute__((noinline)) int traced(int x) { sink = x; return x + 1; }

static XRayLogInitStatus my_init(size_t, size_t, void *, size_t) {
  return XRayLogInitStatus::XRAY_LOG_INITIALIZED;
}
static XRayLogInitStatus my_finalize() { return XRayLogInitStatus::XRAY_LOG_FINALIZED; }
static XRayLogFlushStatus my_flush() { return XRayLogFlushStatus::XRAY_LOG_FLUSHED; }

[[clang::xray_never_instrument]] int main() {
  static_assert(sizeof(__xray::XRayFileHeader) == 32, "header");
  static_assert(sizeof(__xray::XRayRecord) == 32, "record");
  enum XRayEntryType tagged = XRayEntryType::TAIL;
  XRayEntryType plain = LOG_ARGS_ENTRY;
  assert(tagged == 2 && plain == 3);

  XRayLogImpl impl{my_init, my_finalize, handler, my_flush};
  struct XRayLogImpl tagged_impl = impl;
  auto reg = __xray_log_register_mode("cxx-mode", tagged_impl);
  assert(reg == XRayLogRegisterStatus::XRAY_REGISTRATION_OK);
  assert(__xray_log_select_mode("cxx-mode") == XRayLogRegisterStatus::XRAY_REGISTRATION_OK);
  auto init = __xray_log_init_mode("cxx-mode", "");
  assert(init == XRayLogInitStatus::XRAY_LOG_INITIALIZED);

  auto status = __xray_patch();
  assert(status == XRayPatchingStatus::SUCCESS);
  __xray_set_handler(handler);
  traced(1);
  assert(__xray_unpatch() == XRayPatchingStatus::SUCCESS);
  __xray_remove_handler();

  assert(__xray_log_finalize() == XRayLogInitStatus::XRAY_LOG_FINALIZED);
  assert(__xray_log_flushLog() == XRayLogFlushStatus::XRAY_LOG_FLUSHED);
  __xray_log_set_buffer_iterator([](XRayBuffer b) { return XRayBuffer{nullptr, 0}; });
  auto processed = __xray_log_process_buffers([](const char *mode, struct XRayBuffer b) {
    std::printf("%s %zu\n", mode, b.Size);
  });
  (void)processed;
  __xray_log_remove_buffer_iterator();
  std::printf("events %d\n", events);
  return 0;
}
