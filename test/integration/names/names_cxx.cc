// Known C++ functions for the name tests: namespaces, overloads, templates,
// a member function, extern "C". work() calls each once.
#define NOINLINE __attribute__((noinline))
static volatile int sink;

namespace parser {
NOINLINE int lex(int x) { sink += x; return x + 1; }
NOINLINE int lex(const char *s) { sink += s[0]; return s[0]; }
template <typename T> NOINLINE T parse(T v) { sink += (int)v; return v * 2; }
struct Node {
  NOINLINE int eval(int x) const;
};
NOINLINE int Node::eval(int x) const { sink += x; return x - 1; }
} // namespace parser

namespace util {
NOINLINE int lex_helper(int x) { sink += x; return x ^ 3; }
} // namespace util

NOINLINE int top_level(int x) { sink += x; return x + 7; }
extern "C" NOINLINE int c_linkage(int x) { sink += x; return x * 5; }

NOINLINE void work() {
  parser::lex(1);
  parser::lex("a");
  parser::parse<int>(2);
  parser::parse<double>(1.5);
  parser::Node n;
  n.eval(3);
  util::lex_helper(4);
  top_level(5);
  c_linkage(6);
}

#include "driver.h"
