// Typed-event handlers of both header generations, from C++: functions and
// lambdas of LLVM 14-19's (uint16_t, ...) and LLVM 20's (size_t, ...) type
// pick the right overload; nullptr still removes the handler.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <xray/xray_interface.h>

#define NOXRAY __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((xray_always_instrument, noinline))

static char out[1024];
static int len;

NOXRAY static void llvm14_handler(uint16_t type, const void *p, size_t n) {
  len += snprintf(out + len, sizeof out - (size_t)len, "u16 %u %.*s\n",
                  (unsigned)type, (int)n, (const char *)p);
}
NOXRAY static void llvm20_handler(size_t type, const void *p, size_t n) {
  len += snprintf(out + len, sizeof out - (size_t)len, "size_t %#zx %.*s\n",
                  type, (int)n, (const char *)p);
}

TRACED void small_type() { __xray_typedevent(7, "seven", 5); }
TRACED void max_type() { __xray_typedevent(0xFFFF, "max", 3); }

int main() {
  if (__xray_patch() != SUCCESS)
    return 2;
  bool ok = __xray_set_typedevent_handler(llvm20_handler) == 1;
  small_type();
  max_type();
  ok &= __xray_set_typedevent_handler(llvm14_handler) == 1;
  small_type();
  max_type();
  ok &= __xray_set_typedevent_handler(
            [](size_t type, const void *, size_t) {
              len += snprintf(out + len, sizeof out - (size_t)len,
                              "lambda size_t %#zx\n", type);
            }) == 1;
  max_type();
  ok &= __xray_set_typedevent_handler(
            [](uint16_t type, const void *, size_t) {
              len += snprintf(out + len, sizeof out - (size_t)len,
                              "lambda u16 %u\n", (unsigned)type);
            }) == 1;
  max_type();
  ok &= __xray_set_typedevent_handler(nullptr) == 1; // removes it
  small_type();
  ok &= __xray_remove_typedevent_handler() == 1;
  fputs(out, stdout);
  return ok ? 0 : 1;
}
