/* glob.c: every pattern element, the defined meaning of bad patterns, the
 * bound on backtracking, and splitting pattern lists. Cross-checked with
 * fnmatch(3) on the inputs where the two define the same thing. */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/match/glob.h"

static bool m(const char *pattern, const char *name) {
  return xr_glob_match(pattern, strlen(pattern), name);
}

static void literal_and_wildcards(void **state) {
  (void)state;
  assert_true(m("parse", "parse"));
  assert_false(m("parse", "parser"));
  assert_false(m("parser", "parse"));
  assert_true(m("", ""));
  assert_false(m("", "a"));
  assert_true(m("*", ""));
  assert_true(m("*", "ns::f(int, char)"));
  assert_true(m("parse*", "parse_expr"));
  assert_false(m("parse*", "xparse"));
  assert_true(m("*::lex*", "ns::lexer::next()"));
  assert_false(m("*::lex*", "lexer"));
  assert_true(m("lua_?et*", "lua_getfield"));
  assert_true(m("lua_?et*", "lua_settop"));
  assert_false(m("lua_?et*", "lua_et"));
  assert_true(m("a*b*c", "aXXbYYbZZc"));
  assert_false(m("a*b*c", "aXXbYYbZZ"));
  assert_true(m("**a**", "xxa"));
  assert_true(m("?", "\xc3")); /* one byte, whatever its value */
  assert_false(m("?", ""));
}

static void sets(void **state) {
  (void)state;
  assert_true(m("[abc]x", "bx"));
  assert_false(m("[abc]x", "dx"));
  assert_true(m("[a-c]", "b"));
  assert_false(m("[a-c]", "d"));
  assert_true(m("[!a-c]", "d"));
  assert_true(m("[^a-c]", "d"));
  assert_false(m("[!a-c]", "a"));
  assert_true(m("[]]", "]"));      /* ] first is a member */
  assert_true(m("[!]]", "a"));
  assert_false(m("[!]]", "]"));
  assert_true(m("[a-]", "-"));     /* - last is a member */
  assert_false(m("[z-a]", "m"));   /* reversed range: nothing */
  assert_true(m("operator[[]]", "operator[]"));
}

static void defined_bad_patterns(void **state) {
  (void)state;
  assert_true(m("[", "["));        /* no ]: an ordinary [ */
  assert_true(m("f[x", "f[x"));
  assert_false(m("f[x", "fx"));
  assert_true(m("[!", "[!"));
  assert_true(m("[]", "[]"));      /* "[]" has no closing ] either */
  assert_true(m("\\", "\\"));      /* a trailing backslash is itself */
  assert_true(m("\\*", "*"));
  assert_false(m("\\*", "x"));
  assert_true(m("a\\?", "a?"));
  /* a NUL byte inside the pattern is an ordinary byte no name contains */
  assert_false(xr_glob_match("a\0b", 3, "a"));
  assert_true(xr_glob_match("a*\0", 2, "abc")); /* length, not NUL, ends it */
}

/* a*a*a*...b against aaaa...: would be exponential without the single
 * backtrack; must answer (false) after about pattern x name steps. */
static void no_exponential_backtracking(void **state) {
  (void)state;
  char pattern[201], name[5001];
  for (int i = 0; i < 100; i++) {
    pattern[2 * i] = 'a';
    pattern[2 * i + 1] = '*';
  }
  pattern[199] = 'b';
  pattern[200] = 0;
  memset(name, 'a', 5000);
  name[5000] = 0;
  assert_false(m(pattern, name));
  name[4999] = 'b';
  assert_true(m(pattern, name));
}

static void agrees_with_fnmatch(void **state) {
  (void)state;
  static const char *const patterns[] = {"*", "a*", "*a", "?b*", "[ab]*",
                                         "[!ab]?", "*[0-9]*", "x*y*z", "*::*",
                                         "[a-c][!x]*[xyz]"};
  static const char *const names[] = {"",    "a",   "ab",     "ba",  "abc",
                                      "x1z", "xyz", "ns::f",  "cxz", "bq9x",
                                      "zz",  "a::", "xay_bz", "[a"};
  for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++)
    for (size_t j = 0; j < sizeof names / sizeof *names; j++) {
      bool want = fnmatch(patterns[i], names[j], 0) == 0;
      if (m(patterns[i], names[j]) != want)
        fail_msg("'%s' vs '%s': fnmatch says %d", patterns[i], names[j], want);
    }
}

static void pattern_lists(void **state) {
  (void)state;
  const char *c = " parse* ;;\t*::lex* ;x;  ;";
  struct xr_pattern p;
  assert_true(xr_pattern_next(&c, &p));
  assert_int_equal(p.len, 6);
  assert_memory_equal(p.text, "parse*", 6);
  assert_true(xr_pattern_next(&c, &p));
  assert_int_equal(p.len, 7);
  assert_memory_equal(p.text, "*::lex*", 7);
  assert_true(xr_pattern_next(&c, &p));
  assert_int_equal(p.len, 1);
  assert_false(xr_pattern_next(&c, &p));
  assert_false(xr_pattern_next(&c, &p)); /* stays at the end */
  assert_int_equal(xr_pattern_count(" parse* ;;\t*::lex* ;x;  ;"), 3);
  assert_int_equal(xr_pattern_count(""), 0);
  assert_int_equal(xr_pattern_count(";; ;"), 0);
  assert_int_equal(xr_pattern_count(NULL), 0);
  /* commas and inner blanks belong to the pattern (template arguments) */
  c = "f(int, char)";
  assert_true(xr_pattern_next(&c, &p));
  assert_int_equal(p.len, 12);
}

static bool exact(const char *pattern) { return xr_glob_is_exact(pattern, strlen(pattern)); }

/* Exact patterns (what pins a function: docs/core.md) hold no wildcard; an
 * escaped one, or a '[' that opens no set, is an ordinary byte. */
static void exact_patterns(void **state) {
  (void)state;
  assert_true(exact("parse"));
  assert_true(exact("ns::f(int, char)"));
  assert_true(exact("operator\\*"));      /* operator\* : an escaped star */
  assert_true(m("operator\\*", "operator*"));
  assert_false(m("operator\\*", "operator**"));
  assert_true(exact("a[b"));              /* no closing ]: an ordinary [ */
  assert_true(m("a[b", "a[b"));
  assert_true(exact("x\\"));              /* a trailing backslash */
  assert_true(exact(""));
  assert_false(exact("parse*"));
  assert_false(exact("*"));
  assert_false(exact("lua_?et"));
  assert_false(exact("[abc]x"));
  assert_false(exact("operator[[]]"));
  assert_false(exact("a\\\\*"));          /* a\\* : an escaped backslash, then a star */
  /* The length bounds it: "f*" cut to "f" is exact. */
  assert_true(xr_glob_is_exact("f*", 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(literal_and_wildcards),
      cmocka_unit_test(sets),
      cmocka_unit_test(defined_bad_patterns),
      cmocka_unit_test(no_exponential_backtracking),
      cmocka_unit_test(agrees_with_fnmatch),
      cmocka_unit_test(pattern_lists),
      cmocka_unit_test(exact_patterns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
