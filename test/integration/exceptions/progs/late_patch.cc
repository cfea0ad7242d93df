// An exit without its entry: started with only outer() and later()
// patched, outer() calls g(), which patches itself and thrower() while it
// runs (__xray_patch_matching), calls thrower(), which throws into g's
// catch, and returns: g's exit comes with no entry, with thrower's call
// still open below it and outer's above it. Then outer() returns, and
// later() runs 10 times from main.
#include "exc_prog.h"
#include "xray/xray_names.h"

TRACED int g() {
  int patched = static_cast<int>(__xray_patch_matching("g;thrower"));
  try {
    thrower(0);
  } catch (const std::exception &) {
    sink = sink + 1;
  }
  return patched;
}
TRACED int outer() {
  int patched = g();
  sink = patched; /* after the call: not a tail call */
  return patched;
}

UNTRACED int main() {
  finish_main("patched", outer());
  return 0;
}
