// C++ exceptions through patched functions, and thrown by a handler from
// inside each trampoline (entry, exit, tail exit): the unwinder must walk the
// trampolines' CFI and land in the right catch with destructors run. (Not
// from event handlers: compilers treat __xray_customevent as nounwind, so
// the function holding it gets no landing pad.) Also the program gdb stops
// in (see exceptions.sh).
#include "xray/xray_interface.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#define NOXRAY [[clang::xray_never_instrument]] __attribute__((noinline))
#define TRACED [[clang::xray_always_instrument]] __attribute__((noinline))

volatile int sink;
static int destroyed;
struct Guard {
  ~Guard() { ++destroyed; }
};

static int32_t throw_on_id = -1;
static XRayEntryType throw_on_type;
/* A tail call's sled is a tail exit on x86-64 and an exit on AArch64
 * (clang records it so there): "tail" throws from whichever it is. */
NOXRAY void throwing_handler(int32_t id, XRayEntryType type) {
  if (id == throw_on_id &&
      (type == throw_on_type || (throw_on_type == TAIL && type == EXIT)))
    throw std::runtime_error("from handler " + std::to_string(id) + "/" +
                             std::to_string(static_cast<int>(type)));
}
static size_t custom_bytes;
NOXRAY void custom_handler(void *, size_t n) { custom_bytes += n; }

TRACED void thrower(int x) {
  if (x > 0)
    throw std::invalid_argument("x > 0");
  sink = x;
}
TRACED int middle(int x) {
  Guard g;
  thrower(x);
  return 7;
}
TRACED int leaf(int x) {
  if (x < -1000) /* may throw: callers keep their cleanups for this call */
    throw std::out_of_range("x");
  sink = x;
  return x + 1;
}
TRACED int tail_to_leaf(int x) { sink = x; return leaf(x + 1); }
TRACED void with_event() { __xray_customevent("ev", 2); sink = 1; }
TRACED int with_guard_calls_leaf(int x) {
  Guard g;
  return leaf(x) + 1;
}
NOXRAY int32_t id_of(void *fn) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address(static_cast<int32_t>(id)) == reinterpret_cast<uintptr_t>(fn))
      return static_cast<int32_t>(id);
  return -1;
}

NOXRAY std::string attempt(int (*fn)(int), int arg) {
  try {
    int r = fn(arg);
    return "returned " + std::to_string(r);
  } catch (const std::exception &e) {
    return std::string("caught ") + e.what();
  }
}

NOXRAY void gdb_stop(int32_t, XRayEntryType) { sink = 0; }

NOXRAY int main(int argc, char **) {
  if (__xray_patch() != SUCCESS)
    return 2;
  if (argc > 1) { /* exceptions.sh runs this under gdb: a fixed sequence */
    __xray_set_handler(gdb_stop);
    __xray_set_customevent_handler(custom_handler);
    middle(0);
    tail_to_leaf(1);
    with_event();
    return 0;
  }
  __xray_set_handler(throwing_handler);
  std::printf("plain: %s, destroyed %d\n", attempt(middle, 1).c_str(), destroyed);
  std::printf("no throw: %s\n", attempt(middle, 0).c_str());

  throw_on_id = id_of(reinterpret_cast<void *>(leaf));
  throw_on_type = ENTRY;
  std::printf("entry: %s\n", attempt(leaf, 1).c_str());
  throw_on_type = EXIT;
  destroyed = 0;
  std::printf("exit: %s, destroyed %d\n", attempt(with_guard_calls_leaf, 1).c_str(), destroyed);
  throw_on_id = id_of(reinterpret_cast<void *>(tail_to_leaf));
  throw_on_type = TAIL;
  std::printf("tail: %s\n", attempt(tail_to_leaf, 1).c_str());
  throw_on_id = -1;

  __xray_set_customevent_handler(custom_handler);
  with_event();
  std::printf("event: %zu bytes\n", custom_bytes);
  std::printf("after: %s\n", attempt(leaf, 5).c_str());
  return 0;
}
