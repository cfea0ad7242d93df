// C++ functions whose names libstdc++'s __cxa_demangle (GNU) and LLVM's
// demangler (llvm-xray, libc++abi) spell differently; work() calls each
// once; each writes `sink`, so that no call is optimised away. See
// spelling.sh.
#include <cstddef>
#include <vector>

#define NOINLINE __attribute__((noinline))
static volatile int sink;

namespace spell {
struct S {
  int v;
  template <class T> NOINLINE bool operator<(T) const { sink += v; return v < (int)sizeof(T); }
};
// GNU "operator<< <char [6]>", LLVM "operator<<<char [6]>"
template <class T> NOINLINE S &operator<<(S &s, const T &) { sink += s.v++; return s; }

template <class F> NOINLINE int call(F f) { sink += 1; return f(3); }
// lambdas: GNU "{lambda(int)#2}", LLVM "'lambda0'(int)"
inline NOINLINE int in_inline(int x) {
  auto first = [x](int y) NOINLINE { sink += y; return x + y; };
  auto second = [](int y) NOINLINE { sink += y; return y * 2; };
  return call(first) + call(second);
}
// a lambda in a member function of a class template
template <class T> struct Box {
  T t;
  NOINLINE int run() { return call([this](int y) NOINLINE { sink += y; return (int)t + y; }); }
};
// unnamed types: GNU "{unnamed type#1}", LLVM "'unnamed'"
struct Outer {
  struct { int c; } in;
  enum { X, Y } e;
};
template <class T> NOINLINE int take(T) { sink += 2; return 2; }
// GNU "decltype(nullptr)", LLVM "std::nullptr_t"
NOINLINE int takes_null(std::nullptr_t) { sink += 1; return 1; }
// GNU and LLVM 13/14 "> >", LLVM 16+ ">>"
NOINLINE int sum(const std::vector<std::vector<int>> &v) { sink += (int)v.size(); return (int)v.size(); }
// an empty pack before another argument: GNU "first<, int>", LLVM "first<int>"
template <class... A, class B> NOINLINE int first(B b) { sink += (int)b; return (int)sizeof...(A) + (int)b; }
} // namespace spell

NOINLINE void work() {
  spell::S s{0};
  s << "hello" << 1;
  sink += s < 'c';
  sink += spell::in_inline(1);
  sink += spell::Box<int>{2}.run();
  spell::Outer o{};
  sink += spell::take(o.in) + spell::take(o.e);
  sink += spell::takes_null(nullptr);
  sink += spell::sum({{1}, {2, 3}});
  sink += spell::first<>(4);
}

#include "driver.h"
