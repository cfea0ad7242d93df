// A C++ program without the XRay API, for xrayctl's names module read
// from binaries of another CPU (fn_names_aarch64.sh) and from shared
// objects: namespaces, overloads, a class template, a static function,
// extern "C". It needs no runtime: its sleds stay nops.
#define NOINLINE __attribute__((noinline))
static volatile int sink;

namespace shapes {
template <typename T> struct Box {
  NOINLINE T get(T v) const { sink += (int)v; return v; }
};
NOINLINE int area(int w, int h) { sink += w; return w * h; }
NOINLINE int area(double w) { sink += 1; return (int)(w * w); }
} // namespace shapes

NOINLINE static int helper(int x) { sink += x; return x; }
extern "C" NOINLINE int c_entry(int x) { sink += x; return helper(x) + 1; }

extern "C" int plain_work(void) {
  shapes::Box<int> b;
  shapes::Box<long> l;
  return b.get(1) + (int)l.get(2) + shapes::area(2, 3) + shapes::area(1.5) + c_entry(4);
}

#ifndef PLAIN_NO_MAIN
int main() { return plain_work() - 20; }
#endif
