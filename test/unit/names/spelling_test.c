/* spelling.c: each difference between GNU's demangler (libstdc++'s
 * __cxa_demangle, c++filt) and LLVM's (libc++abi's, llvm-cxxfilt,
 * llvm-xray) rewrites to one exact canonical string from both sides; names
 * that are already alike do not change; the rewriting is idempotent and
 * never lengthens. Then xr_names_mark: a pattern in either spelling selects
 * the same functions of a table in either spelling, and a wildcard inside a
 * construct works in the table's own spelling. The GNU and LLVM strings are
 * the demanglers' outputs for the same symbols (demangled with libstdc++ 12
 * and with LLVM 14 and 19). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/match/spelling.h"
#include "core/names/names.h"

/* The canonical spelling of s, checked for its length and idempotence. */
static const char *canon(const char *s) {
  static char out[4][1024];
  static int next;
  char *o = out[next++ % 4];
  size_t len = strlen(s);
  size_t n = xr_spelling_canonical(s, len, o);
  assert_int_equal(n, strlen(o));
  assert_true(n <= len);
  char again[1024];
  assert_int_equal(xr_spelling_canonical(o, n, again), n);
  assert_string_equal(again, o);
  return o;
}

/* gnu and llvm are one symbol's two spellings; both become `canonical`. */
static void same(const char *gnu, const char *llvm, const char *canonical) {
  assert_string_equal(canon(gnu), canonical);
  assert_string_equal(canon(llvm), canonical);
}

static void operators_before_template_arguments(void **state) {
  (void)state;
  same("S& operator<< <char [6]>(S&, char const (&) [6])",
       "S& operator<<<char [6]>(S&, char const (&) [6])",
       "S& operator<<<char [6]>(S&, char const (&) [6])");
  same("bool operator< <int>(S, int)", "bool operator<<int>(S, int)",
       "bool operator<<int>(S, int)");
  same("P& P::operator<< <int>(int)", "P& P::operator<<<int>(int)",
       "P& P::operator<<<int>(int)");
  /* no space in either: unchanged */
  assert_string_equal(canon("bool operator<=<int>(S, int)"), "bool operator<=<int>(S, int)");
  assert_string_equal(canon("S operator>><char>(S, char)"), "S operator>><char>(S, char)");
  assert_string_equal(canon("P& P::operator<<=<int>(int)"), "P& P::operator<<=<int>(int)");
  assert_string_equal(canon("std::strong_ordering operator<=><int>(S, int)"),
                      "std::strong_ordering operator<=><int>(S, int)");
}

static void closing_angle_brackets(void **state) {
  (void)state;
  /* GNU and LLVM 13-14 "> >", LLVM 16+ ">>"; GNU also ">>" after an
   * empty pack */
  same("void f<std::vector<std::vector<int> > >(std::vector<std::vector<int> >&)",
       "void f<std::vector<std::vector<int>>>(std::vector<std::vector<int>>&)",
       "void f<std::vector<std::vector<int>>>(std::vector<std::vector<int>>&)");
  same("llvm::PassManager<llvm::Function, llvm::AnalysisManager<llvm::Function>>::run()",
       "llvm::PassManager<llvm::Function, llvm::AnalysisManager<llvm::Function> >::run()",
       "llvm::PassManager<llvm::Function, llvm::AnalysisManager<llvm::Function>>::run()");
}

static void lambdas(void **state) {
  (void)state;
  same("int call<in_inline(int)::{lambda(int)#1}>(in_inline(int)::{lambda(int)#1})",
       "int call<in_inline(int)::'lambda'(int)>(in_inline(int)::'lambda'(int))",
       "int call<in_inline(int)::'lambda'(int)>(in_inline(int)::'lambda'(int))");
  same("main::{lambda(int)#2}::operator()(int) const",
       "main::'lambda0'(int)::operator()(int) const",
       "main::'lambda0'(int)::operator()(int) const");
  same("std::_Function_handler<int (int), main::{lambda(int)#6}>::_M_invoke()",
       "std::_Function_handler<int (int), main::'lambda4'(int)>::_M_invoke()",
       "std::_Function_handler<int (int), main::'lambda4'(int)>::_M_invoke()");
  same("f()::{lambda()#12}::operator()() const", "f()::'lambda10'()::operator()() const",
       "f()::'lambda10'()::operator()() const");
  /* generic lambdas: GNU "auto:1", LLVM "auto" */
  same("main::{lambda(auto:1&, auto:2&)#4}::operator()<int>(int&, int&) const",
       "main::'lambda2'(auto&, auto&)::operator()<int>(int&, int&) const",
       "main::'lambda2'(auto&, auto&)::operator()<int>(int&, int&) const");
  /* parentheses inside the parameters, and a lambda among them */
  same("g<f()::{lambda(void (*)(int), f()::{lambda()#1})#2}>()",
       "g<f()::'lambda0'(void (*)(int), f()::'lambda'())>()",
       "g<f()::'lambda0'(void (*)(int), f()::'lambda'())>()");
  same("f(int)::{lambda(std::function<void (int)>)#1}::operator()(std::function<void (int)>) const",
       "f(int)::'lambda'(std::function<void (int)>)::operator()(std::function<void (int)>) const",
       "f(int)::'lambda'(std::function<void (int)>)::operator()(std::function<void (int)>) const");
  /* not a lambda GNU writes: kept */
  assert_string_equal(canon("{lambda(int)#0}"), "{lambda(int)#0}");
  assert_string_equal(canon("{lambda(int)#1"), "{lambda(int)#1");
  assert_string_equal(canon("{lambda(int}"), "{lambda(int}");
  assert_string_equal(canon("{lambda(int)#x}"), "{lambda(int)#x}");
}

static void unnamed_types(void **state) {
  (void)state;
  same("int take<Outer::{unnamed type#1}>(Outer::{unnamed type#1})",
       "int take<Outer::'unnamed'>(Outer::'unnamed')", "int take<Outer::'unnamed'>(Outer::'unnamed')");
  same("int take<Outer::{unnamed type#2}>(Outer::{unnamed type#2})",
       "int take<Outer::'unnamed0'>(Outer::'unnamed0')",
       "int take<Outer::'unnamed0'>(Outer::'unnamed0')");
}

static void nullptr_type_and_value(void **state) {
  (void)state;
  same("takes_np(decltype(nullptr))", "takes_np(std::nullptr_t)", "takes_np(std::nullptr_t)");
  same("decltype(nullptr) declnull<int>(int)", "std::nullptr_t declnull<int>(int)",
       "std::nullptr_t declnull<int>(int)");
  /* the value: GNU "(decltype(nullptr))0", LLVM 16+ "nullptr" */
  same("int np<(decltype(nullptr))0>()", "int np<nullptr>()", "int np<nullptr>()");
  assert_string_equal(canon("int f<(std::nullptr_t)0>()"), "int f<nullptr>()");
  /* another number is no null pointer; a longer word is not the keyword */
  assert_string_equal(canon("int f<(decltype(nullptr))01>()"), "int f<(std::nullptr_t)01>()");
  assert_string_equal(canon("mydecltype(nullptr)"), "mydecltype(nullptr)");
}

static void decltype_space(void **state) {
  (void)state;
  /* the expressions inside still differ (not rewritten): only the keyword's
   * space goes */
  assert_string_equal(canon("decltype ({parm#1}+(1)) decl<int>(int)"),
                      "decltype({parm#1}+(1)) decl<int>(int)");
  assert_string_equal(canon("decltype(fp + 1) decl<int>(int)"), "decltype(fp + 1) decl<int>(int)");
}

static void empty_packs(void **state) {
  (void)state;
  same("int mid<int, , 0>(int)", "int mid<int, 0>(int)", "int mid<int, 0>(int)");
  same("int first<, int>(int)", "int first<int>(int)", "int first<int>(int)");
  same("int two<, int>(L<>, L<int>)", "int two<int>(L<>, L<int>)", "int two<int>(L<>, L<int>)");
  same("int params<>(, int)", "int params<>(int)", "int params<>(int)");
  same("int params2<>(int, , char)", "int params2<>(int, char)", "int params2<>(int, char)");
  same("int tl2<>(L<, int>)", "int tl2<>(L<int>)", "int tl2<>(L<int>)");
  same("f<int, , , 0>()", "f<int, 0>()", "f<int, 0>()");
  /* a "<" that closes no list: an operator's name */
  assert_string_equal(canon("g<&operator<, int>()"), "g<&operator<, int>()");
  assert_string_equal(canon("g<&operator<<, int>()"), "g<&operator<<, int>()");
}

static void address_arguments(void **state) {
  (void)state;
  same("int ptr<&gi>()", "int ptr<&(gi)>()", "int ptr<&gi>()");
  same("X<&ns::var, 1>", "X<&(ns::var), 1>", "X<&ns::var, 1>");
  /* LLVM 14 writes a function's parameters there, GNU does not: kept, as
   * dropping them would merge overloads */
  assert_string_equal(canon("X<&(f(int))>::g()"), "X<&(f(int))>::g()");
  assert_string_equal(canon("h(&(x))"), "h(&(x))");
}

static void member_pointer_binding(void **state) {
  (void)state;
  same("typeinfo for std::_Bind<llvm::Error (llvm::T::*(llvm::T*, std::_Placeholder<1>))(llvm::StringRef)>",
       "typeinfo for std::_Bind<llvm::Error (llvm::T::* (llvm::T*, std::_Placeholder<1>))(llvm::StringRef)>",
       "typeinfo for std::_Bind<llvm::Error (llvm::T::*(llvm::T*, std::_Placeholder<1>))(llvm::StringRef)>");
  assert_string_equal(canon("int mp<Q>(int (Q::*)(int))"), "int mp<Q>(int (Q::*)(int))");
}

static void thread_local_functions(void **state) {
  (void)state;
  same("TLS init function for tlv", "thread-local initialization routine for tlv",
       "TLS init function for tlv");
  same("TLS wrapper function for ns::v", "thread-local wrapper routine for ns::v",
       "TLS wrapper function for ns::v");
  /* only at the start */
  assert_string_equal(canon("f(thread-local wrapper routine for x)"),
                      "f(thread-local wrapper routine for x)");
}

static void alike_names_do_not_change(void **state) {
  (void)state;
  static const char *const alike[] = {
      "main",
      "parse_expr",
      "_ZN6parser3lexEPKc",
      "fn12@0x401000",
      "parser::lex(char const*)",
      "int parser::parse<int>(int)",
      "int chr<(char)97>()",
      "int boo<true>()",
      "int num<-5>()",
      "long lnum<-9l>()",
      "unsigned int unum<3u>()",
      "int npacks<1, -2>()",
      "int packs<>()",
      "int arr(int (&) [3], char const (&) [6])",
      "int takes_fp(int (*)(int), void (*)())",
      "int takes_mp(int S::*, int (P::*)(int))",
      "ns::__cxx11::Tg ns::tagged_ret[abi:cxx11]()",
      "std::ios_base::failure[abi:cxx11]::failure(char const*)",
      "non-virtual thunk to W::~W()",
      "P::operator->()",
      "P::operator()<int>(int)",
      "bool P::operator==(P const&) const",
      "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char>>::basic_string()",
      "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int>>>::operator[](int const&)",
      "x > y",
      "a <b",
      "",
  };
  for (size_t i = 0; i < sizeof alike / sizeof alike[0]; i++)
    assert_string_equal(canon(alike[i]), alike[i]);
}

/* Any bytes, no NUL needed at the end: only len bytes are read. */
static void reads_only_its_length(void **state) {
  (void)state;
  char out[64];
  assert_int_equal(xr_spelling_canonical("a> >b", 3, out), 3);
  assert_string_equal(out, "a> ");
  assert_int_equal(xr_spelling_canonical("{lambda(int)#1}", 14, out), 14);
  assert_string_equal(out, "{lambda(int)#1");
  assert_int_equal(xr_spelling_canonical("x", 0, out), 0);
  assert_string_equal(out, "");
  assert_int_equal(xr_spelling_canonical("a\0> >", 5, out), 4);
  assert_memory_equal(out, "a\0>>", 5);
}

/* Lambdas nested deeper than the rewriter follows keep GNU's form inside,
 * and the output stays one well-formed string. */
static void deep_nesting(void **state) {
  (void)state;
  char in[2048] = "", want[2048] = "";
  for (int i = 0; i < 20; i++)
    strcat(in, "{lambda(");
  strcat(in, "int");
  for (int i = 0; i < 20; i++)
    strcat(in, ")#1}");
  for (int i = 0; i < 16; i++)
    strcat(want, "'lambda'(");
  for (int i = 0; i < 4; i++)
    strcat(want, "{lambda(");
  strcat(want, "int");
  for (int i = 0; i < 4; i++)
    strcat(want, ")#1}");
  for (int i = 0; i < 16; i++)
    strcat(want, ")");
  char out[2048];
  xr_spelling_canonical(in, strlen(in), out);
  assert_string_equal(out, want);
}

/* A table in GNU's spelling, another in LLVM's, as names.c builds them. */
static const char *const gnu_names[] = {
    "S& operator<< <char [6]>(S&, char const (&) [6])",
    "S& operator<< <int>(S&, int const&)",
    "int call<in_inline(int)::{lambda(int)#1}>(in_inline(int)::{lambda(int)#1})",
    "int call<in_inline(int)::{lambda(int)#2}>(in_inline(int)::{lambda(int)#2})",
    "void sum<std::vector<std::vector<int> > >(std::vector<std::vector<int> > const&)",
    "takes_np(decltype(nullptr))",
    "parser::lex(int)",
};
static const char *const llvm_names[] = {
    "S& operator<<<char [6]>(S&, char const (&) [6])",
    "S& operator<<<int>(S&, int const&)",
    "int call<in_inline(int)::'lambda'(int)>(in_inline(int)::'lambda'(int))",
    "int call<in_inline(int)::'lambda0'(int)>(in_inline(int)::'lambda0'(int))",
    "void sum<std::vector<std::vector<int>>>(std::vector<std::vector<int>> const&)",
    "takes_np(std::nullptr_t)",
    "parser::lex(int)",
};
enum { NAMES = sizeof gnu_names / sizeof gnu_names[0] };

static struct xr_name_entry entries[NAMES];
static char canonical[NAMES][256];

static const struct xr_name_table *table(const char *const *names) {
  static struct xr_name_table t;
  for (size_t i = 0; i < NAMES; i++) {
    xr_spelling_canonical(names[i], strlen(names[i]), canonical[i]);
    bool same_text = strcmp(canonical[i], names[i]) == 0;
    entries[i] = (struct xr_name_entry){names[i], NULL, 0x1000 + i,
                                         same_text ? names[i] : canonical[i]};
  }
  t = (struct xr_name_table){entries, NAMES, "test", 0};
  return &t;
}

/* The ids (1-based, as "1 3 ") `patterns` selects in the table. */
static const char *selected_ids(const struct xr_name_table *t, const char *patterns) {
  static char ids[64];
  uint8_t selected[NAMES] = {0};
  size_t n = xr_names_mark(t, patterns, selected, 1, NULL);
  ids[0] = '\0';
  size_t marked = 0;
  for (size_t i = 0; i < NAMES; i++)
    if (selected[i]) {
      char one[8];
      snprintf(one, sizeof one, "%zu ", i + 1);
      strcat(ids, one);
      marked++;
    }
  assert_int_equal(n, marked);
  return ids;
}

static void either_spelling_selects(void **state) {
  (void)state;
  const char *const *tables[] = {gnu_names, llvm_names};
  for (int k = 0; k < 2; k++) {
    const struct xr_name_table *t = table(tables[k]);
    /* every name of either spelling, as an exact pattern (escaped [ ]) */
    assert_string_equal(selected_ids(t, "S& operator<< <char \\[6\\]>(S&, char const (&) \\[6\\])"), "1 ");
    assert_string_equal(selected_ids(t, "S& operator<<<char \\[6\\]>(S&, char const (&) \\[6\\])"), "1 ");
    assert_string_equal(selected_ids(t, "int call<in_inline(int)::{lambda(int)#2}>(in_inline(int)::{lambda(int)#2})"), "4 ");
    assert_string_equal(selected_ids(t, "int call<in_inline(int)::'lambda0'(int)>(in_inline(int)::'lambda0'(int))"), "4 ");
    assert_string_equal(selected_ids(t, "void sum<std::vector<std::vector<int> > >(std::vector<std::vector<int> > const&)"), "5 ");
    assert_string_equal(selected_ids(t, "void sum<std::vector<std::vector<int>>>(std::vector<std::vector<int>> const&)"), "5 ");
    assert_string_equal(selected_ids(t, "takes_np(decltype(nullptr))"), "6 ");
    assert_string_equal(selected_ids(t, "takes_np(std::nullptr_t)"), "6 ");
    /* wildcards outside the constructs, in either spelling */
    assert_string_equal(selected_ids(t, "*operator<< <*"), "1 2 ");
    assert_string_equal(selected_ids(t, "*operator<<<*"), "1 2 ");
    assert_string_equal(selected_ids(t, "*{lambda(int)#1}*;parser::*"), "3 7 ");
    assert_string_equal(selected_ids(t, "*'lambda'(int)*;parser::*"), "3 7 ");
    assert_string_equal(selected_ids(t, "*<int> >*"), "5 ");
    assert_string_equal(selected_ids(t, "*<int>>*"), "5 ");
    assert_string_equal(selected_ids(t, "nomatch*;*lambda1*"), "");
  }
  /* a wildcard inside a construct works in the spelling the table holds */
  assert_string_equal(selected_ids(table(gnu_names), "*{lambda(*)#?}*"), "3 4 ");
  assert_string_equal(selected_ids(table(llvm_names), "*'lambda?'(*"), "4 ");
  assert_string_equal(selected_ids(table(gnu_names), "*operator<< <[c]*"), "1 ");
  /* and across spellings where the rewritten pattern still reads as the
   * construct: the lambda's parameters are a wildcard */
  assert_string_equal(selected_ids(table(llvm_names), "*{lambda(*)#2}*"), "4 ");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(operators_before_template_arguments),
      cmocka_unit_test(closing_angle_brackets),
      cmocka_unit_test(lambdas),
      cmocka_unit_test(unnamed_types),
      cmocka_unit_test(nullptr_type_and_value),
      cmocka_unit_test(decltype_space),
      cmocka_unit_test(empty_packs),
      cmocka_unit_test(address_arguments),
      cmocka_unit_test(member_pointer_binding),
      cmocka_unit_test(thread_local_functions),
      cmocka_unit_test(alike_names_do_not_change),
      cmocka_unit_test(reads_only_its_length),
      cmocka_unit_test(deep_nesting),
      cmocka_unit_test(either_spelling_selects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
