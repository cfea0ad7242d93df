// The shared object of tail_unwind.sh: the program's tail call again
// (tail_unwind.cc), reached through the object's own trampolines from
// libxray-dso.a (a forwarder to the program's paths, a dense path).
#define NOXRAY extern "C" [[clang::xray_never_instrument]] __attribute__((noinline))
#define TRACED extern "C" [[clang::xray_always_instrument]] __attribute__((noinline))

struct so_thrown {
  int value;
};
volatile int so_sink;
extern "C" int so_leaf_calls;
int so_leaf_calls;

NOXRAY int so_opaque(int x) {
  so_sink = x;
  return so_sink;
}
/* May throw: its callers keep their landing pads for the calls that reach
 * it. */
TRACED int so_leaf(int a, int b, int c, int d) {
  if (a < -1000)
    throw so_thrown{a};
  so_leaf_calls++;
  return a + b + c + d;
}
/* a, b, c in callee-saved registers, popped before the tail call. */
TRACED int so_tail_caller(int x) {
  int a = so_opaque(x), b = so_opaque(x + 1), c = so_opaque(x + 2);
  int d = so_opaque(a ^ b ^ c);
  return so_leaf(a, b, c, d);
}
