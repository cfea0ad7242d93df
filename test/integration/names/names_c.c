/* Known C functions for the name tests (the C twin of names_cxx.cc: links
 * no C++ runtime). work() calls each once. */
#define NOINLINE __attribute__((noinline))
static volatile int sink;

NOINLINE int lex_token(int x) { sink += x; return x + 1; }
NOINLINE int parse_expr(int x) { sink += x; return x * 2; }
NOINLINE int parse_term(int x) { sink += x; return x * 3; }
NOINLINE int lua_getfield(int x) { sink += x; return x - 1; }
NOINLINE int lua_setfield(int x) { sink += x; return x - 2; }
NOINLINE int lua_gettop(int x) { sink += x; return x - 3; }
NOINLINE static int scan(int x) { sink += x; return x ^ 1; }

NOINLINE void work(void) {
  lex_token(1);
  parse_expr(2);
  parse_term(3);
  lua_getfield(4);
  lua_setfield(5);
  lua_gettop(6);
  scan(7);
}

#include "driver.h"
