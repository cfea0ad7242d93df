// <xray/xray_version.h> from C++ (11 and later): the macros in #if and in
// constant expressions, the function with C linkage (it links against the
// archive's __xray_runtime_version). Prints the archive's version.
#include <xray/xray_version.h>

#include <cstdio>
#include <cstring>

#if XRAY_RUNTIME_VERSION_NUMBER < XRAY_RUNTIME_VERSION_ENCODE(0, 2, 0)
#error "xray_version.h first came with 0.2.0"
#endif
static_assert(XRAY_RUNTIME_VERSION_NUMBER ==
                  XRAY_RUNTIME_VERSION_ENCODE(XRAY_RUNTIME_VERSION_MAJOR,
                                              XRAY_RUNTIME_VERSION_MINOR,
                                              XRAY_RUNTIME_VERSION_PATCH),
              "the number is made of the parts");

int main() {
  const char *(*ask)(void) = __xray_runtime_version;
  const char *v = ask();
  if (std::strcmp(v, XRAY_RUNTIME_VERSION) != 0) {
    std::fprintf(stderr, "archive %s, headers %s\n", v, XRAY_RUNTIME_VERSION);
    return 1;
  }
  std::puts(v);
  return 0;
}
