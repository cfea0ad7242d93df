// The shared object of object.sh (linked with libxray-dso.a): so_mid()
// calls so_thrower(), which throws out of the object into the program's
// untraced catcher (object_main.cc).
#include <stdexcept>

#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))

static volatile int so_sink;

TRACED void so_thrower(int i) {
  so_sink = i;
  if (so_sink >= 0) /* always: the compiler must not know so_thrower never returns */
    throw std::runtime_error("so_thrower");
}
TRACED void so_mid(int i) {
  so_thrower(i);
  so_sink = so_sink + 1; /* not reached: keeps the call from being a tail call */
}
