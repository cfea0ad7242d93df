/* options.c: the generic parser, every type, every separator, quotes, and
 * every kind of bad input (exact values kept, exact error counts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "capture.h"
#include "core/options/option_words.h"
#include "core/options/options.h"
#include "core/base/report.h"

struct sample {
  bool b;
  int32_t i;
  uint64_t u;
  char s[16];
  int32_t wide; /* full int32 range */
  char list[32]; /* runs to the next blank */
};

/* The "s" row's words, as a table of words would write them. */
static void s_words(char *buf, size_t cap) { snprintf(buf, cap, "x and y"); }

static const struct xr_option rows[] = {
    {"b", XR_OPT_BOOL, offsetof(struct sample, b), 0, "false", 0, 1, "a bool", NULL},
    {"i", XR_OPT_INT, offsetof(struct sample, i), 0, "7", -100, 100, "an int", NULL},
    {"u", XR_OPT_UPTR, offsetof(struct sample, u), 0, "4096", 0, 1 << 20,
     "a uptr", NULL},
    {"s", XR_OPT_STRING, offsetof(struct sample, s), 16, "dflt", 0, 0,
     "a string", s_words},
    {"wide", XR_OPT_INT, offsetof(struct sample, wide), 0, "0", INT32_MIN,
     INT32_MAX, "an int of the whole int32 range", NULL},
    {"list", XR_OPT_STRING, offsetof(struct sample, list), 32, "", XR_OPT_TO_BLANK, 0,
     "a list whose syntax holds ',' and ':'", NULL},
};
static const struct xr_option_table table = {"TEST_OPTIONS", rows,
                                             XR_ARRAY_SIZE(rows)};

static struct sample v;
static const char *stderr_text;

/* Parses text into v with stderr captured; returns the error count. */
static int parse(const char *text) {
  capture_begin();
  int bad = xr_options_parse(&table, &v, text, "TEST_OPTIONS");
  stderr_text = capture_end();
  return bad;
}

static void assert_defaults(void) {
  assert_false(v.b);
  assert_int_equal(v.i, 7);
  assert_int_equal(v.u, 4096);
  assert_string_equal(v.s, "dflt");
  assert_int_equal(v.wide, 0);
}

static int reset(void **state) {
  (void)state;
  xr_verbosity = 0;
  memset(&v, 0x5a, sizeof v);
  xr_options_set_defaults(&table, &v);
  return 0;
}

static void defaults(void **state) {
  (void)state;
  assert_defaults();
}

static void null_and_empty_text_change_nothing(void **state) {
  (void)state;
  assert_int_equal(parse(NULL), 0);
  assert_int_equal(parse(""), 0);
  assert_int_equal(parse(" ,:\t\n"), 0);
  assert_defaults();
  assert_string_equal(stderr_text, "");
}

static void every_type_and_every_separator(void **state) {
  (void)state;
  assert_int_equal(parse("b=true i=-5,u=10:s=abc\twide=-2147483648\n"), 0);
  assert_true(v.b);
  assert_int_equal(v.i, -5);
  assert_int_equal(v.u, 10);
  assert_string_equal(v.s, "abc");
  assert_int_equal(v.wide, INT32_MIN);
  assert_int_equal(parse("\rb=0\ri=+3\r"), 0);
  assert_false(v.b);
  assert_int_equal(v.i, 3);
  assert_string_equal(stderr_text, "");
}

/* A row with XR_OPT_TO_BLANK: its unquoted value runs to the next blank,
 * ',' and ':' its own; quoted as any; the other rows still end at them. */
static void value_to_the_next_blank(void **state) {
  (void)state;
  assert_int_equal(parse("list=a@arg1,arg2;ns::f@retval s=x,i=4"), 0);
  assert_string_equal(v.list, "a@arg1,arg2;ns::f@retval");
  assert_string_equal(v.s, "x");
  assert_int_equal(v.i, 4);
  assert_int_equal(parse("i=5:list=x:y,z\tb=1"), 0);
  assert_string_equal(v.list, "x:y,z");
  assert_int_equal(v.i, 5);
  assert_true(v.b);
  assert_int_equal(parse("list='f<int, char>@arg1',i=6"), 0);
  assert_string_equal(v.list, "f<int, char>@arg1");
  assert_int_equal(v.i, 6);
  assert_int_equal(parse("list=,u=3"), 0); /* ',' is the value's */
  assert_string_equal(v.list, ",u=3");
  assert_int_equal(v.u, 4096);
  assert_string_equal(stderr_text, "");
}

static void bool_spellings(void **state) {
  (void)state;
  static const struct {
    const char *text;
    bool value;
  } cases[] = {{"b=1", true},  {"b=0", false},     {"b=true", true},
               {"b=false", false}, {"b=yes", true}, {"b=no", false}};
  for (size_t k = 0; k < XR_ARRAY_SIZE(cases); k++) {
    v.b = !cases[k].value;
    assert_int_equal(parse(cases[k].text), 0);
    assert_int_equal(v.b, cases[k].value);
  }
}

static void int_and_uptr_bounds(void **state) {
  (void)state;
  assert_int_equal(parse("wide=2147483647 i=100 u=1048576"), 0);
  assert_int_equal(v.wide, INT32_MAX);
  assert_int_equal(v.i, 100);
  assert_int_equal(v.u, 1048576);
  assert_int_equal(parse("i=-100 u=0"), 0);
  assert_int_equal(v.i, -100);
  assert_int_equal(v.u, 0);
}

static void uptr_hex(void **state) {
  (void)state;
  assert_int_equal(parse("u=0x1000"), 0);
  assert_int_equal(v.u, 4096);
  assert_int_equal(parse("u=0X10"), 0);
  assert_int_equal(v.u, 16);
  assert_int_equal(parse("u=0x"), 1);
  assert_int_equal(v.u, 16);
}

static void repeated_separators_are_harmless(void **state) {
  (void)state;
  assert_int_equal(parse(",,, ::b=yes,, ,:i=1  ,,"), 0);
  assert_true(v.b);
  assert_int_equal(v.i, 1);
  assert_string_equal(stderr_text, "");
}

static void quotes(void **state) {
  (void)state;
  assert_int_equal(parse("s='a b,c:d'"), 0);
  assert_string_equal(v.s, "a b,c:d");
  assert_int_equal(parse("s=\"x'y\" i='42'"), 0);
  assert_string_equal(v.s, "x'y");
  assert_int_equal(v.i, 42);
  assert_int_equal(parse("s=''"), 0);
  assert_string_equal(v.s, "");
}

static void unterminated_quote_stops_parsing(void **state) {
  (void)state;
  assert_int_equal(parse("b=1 s='abc i=9"), 1);
  assert_true(v.b);              /* before the quote: applied */
  assert_string_equal(v.s, "dflt");
  assert_int_equal(v.i, 7);      /* inside the quote: never seen */
  assert_non_null(strstr(stderr_text, "unterminated single quote"));
  assert_int_equal(count_lines(stderr_text), 1);
  assert_int_equal(parse("s=\"abc"), 1);
  assert_string_equal(v.s, "dflt");
}

static void text_after_closing_quote(void **state) {
  (void)state;
  assert_int_equal(parse("s='ab'cd i=3"), 1);
  assert_string_equal(v.s, "dflt");
  assert_int_equal(v.i, 3);
}

static void garbage_values_keep_previous(void **state) {
  (void)state;
  assert_int_equal(parse("b=1 i=12 u=99 s=ok"), 0);
  assert_int_equal(parse("b=maybe i=12abc u=zz wide=1.5 b=TRUE i=0x10"), 6);
  assert_true(v.b);
  assert_int_equal(v.i, 12);
  assert_int_equal(v.u, 99);
  assert_int_equal(v.wide, 0);
  assert_int_equal(count_lines(stderr_text), 6);
  assert_non_null(strstr(stderr_text, "bad value 'maybe' for bool option 'b'"));
  assert_non_null(strstr(stderr_text, "keeping 'true'"));
  assert_non_null(strstr(stderr_text, "keeping '12'"));
}

static void overflow(void **state) {
  (void)state;
  assert_int_equal(parse("wide=2147483648 wide=-2147483649 "
                         "wide=99999999999999999999999 "
                         "u=18446744073709551616 u=0x10000000000000000 "
                         "u=18446744073709551615"),
                   6);
  assert_int_equal(v.wide, 0);
  assert_int_equal(v.u, 4096);
  assert_non_null(strstr(stderr_text, "out of range"));
}

static void negative_uptr(void **state) {
  (void)state;
  assert_int_equal(parse("u=-1 u=-0"), 2);
  assert_int_equal(v.u, 4096);
}

static void out_of_range(void **state) {
  (void)state;
  assert_int_equal(parse("i=101 i=-101 u=1048577"), 3);
  assert_int_equal(v.i, 7);
  assert_int_equal(v.u, 4096);
  assert_non_null(strstr(stderr_text, "out of range [-100, 100]"));
}

static void missing_equals(void **state) {
  (void)state;
  assert_int_equal(parse("b"), 1);
  assert_false(v.b);
  assert_non_null(strstr(stderr_text, "expected '=' after 'b'"));
  assert_int_equal(parse("b i=3 patch"), 2);
  assert_int_equal(v.i, 3);
  assert_int_equal(parse("=5"), 1);
  assert_int_equal(parse("b==1"), 1); /* value "=1" */
  assert_false(v.b);
}

static void empty_values(void **state) {
  (void)state;
  assert_int_equal(parse("b= i= u= wide="), 4);
  assert_defaults();
  assert_non_null(strstr(stderr_text, "empty value"));
  /* An empty string is a value (xray_mode= means "no mode"). */
  assert_int_equal(parse("s="), 0);
  assert_string_equal(v.s, "");
}

static void ten_kilobyte_inputs(void **state) {
  (void)state;
  static char text[10300];
  char *p = text;
  p += sprintf(p, "s=");
  memset(p, 'x', 10240);
  p += 10240;
  p += sprintf(p, " i=5");
  assert_int_equal(parse(text), 1);
  assert_string_equal(v.s, "dflt");
  assert_int_equal(v.i, 5);
  assert_non_null(strstr(stderr_text, "too long (10240 bytes, at most 15)"));
  assert_int_equal(count_lines(stderr_text), 1);

  p = text + sprintf(text, "i=");
  memset(p, '9', 10240);
  p[10240] = 0;
  assert_int_equal(parse(text), 1);
  assert_int_equal(v.i, 5);

  memset(text, 'n', 10240); /* a 10 kB unknown name */
  strcpy(text + 10240, "=1 b=1");
  assert_int_equal(parse(text), 0);
  assert_true(v.b);

  memset(text, 'n', 10240); /* and a 10 kB token without '=' */
  text[10240] = 0;
  assert_int_equal(parse(text), 1);
  assert_true(strlen(stderr_text) < 1024);
}

static void string_exactly_at_capacity(void **state) {
  (void)state;
  assert_int_equal(parse("s=123456789012345"), 0); /* 15 bytes + NUL */
  assert_string_equal(v.s, "123456789012345");
  assert_int_equal(parse("s=1234567890123456"), 1);
  assert_string_equal(v.s, "123456789012345");
}

static void non_utf8_bytes(void **state) {
  (void)state;
  assert_int_equal(parse("s=\xff\xfe"), 1);
  assert_string_equal(v.s, "dflt");
  assert_non_null(strstr(stderr_text, "\\xff\\xfe")); /* shown escaped */
  assert_int_equal(parse("s=\xc0\xaf"), 1);           /* overlong '/' */
  assert_int_equal(parse("s=\xed\xa0\x80"), 1);       /* surrogate */
  assert_int_equal(parse("s=a\x01"), 1);              /* control byte */
  assert_string_equal(v.s, "dflt");
  assert_int_equal(parse("s=caf\xc3\xa9"), 0);        /* valid UTF-8 */
  assert_string_equal(v.s, "caf\xc3\xa9");
  assert_int_equal(parse("b=\xff i=\xff"), 2);
  assert_int_equal(parse("\xff\xfe=1"), 0); /* unknown name: ignored */
  assert_false(v.b);
  assert_int_equal(v.i, 7);
}

static void unknown_flags_quiet_at_verbosity_0(void **state) {
  (void)state;
  assert_int_equal(parse("nope=1 b=1 other=2"), 0);
  assert_true(v.b);
  assert_string_equal(stderr_text, "");
}

static void unknown_flags_listed_at_verbosity_1(void **state) {
  (void)state;
  xr_verbosity = 1;
  assert_int_equal(parse("nope=1 b=1 other=x"), 0);
  xr_verbosity = 0;
  assert_int_equal(count_lines(stderr_text), 1);
  assert_non_null(
      strstr(stderr_text, "TEST_OPTIONS: ignoring 2 unknown flag(s): 'nope', "
                          "'other'"));
}

static void later_value_wins(void **state) {
  (void)state;
  assert_int_equal(parse("i=1 i=2 i=3"), 0);
  assert_int_equal(v.i, 3);
}

static void help_prints_the_table(void **state) {
  (void)state;
  assert_int_equal(parse("help=1 i=9"), 0);
  assert_int_equal(count_lines(stderr_text), 1 + (int)XR_ARRAY_SIZE(rows));
  assert_non_null(strstr(stderr_text, "  i (int, default '7', current '9'): an int\n"));
  assert_non_null(strstr(stderr_text, "  s (string, default 'dflt', current "
                                      "'dflt'): a string: x and y\n"));
  assert_int_equal(parse("help=0"), 0);
  assert_string_equal(stderr_text, "");
  assert_int_equal(parse("help=please"), 1);
}

/* A list of words for help and messages, with and without notes, and cut
 * (always terminated) when the buffer is short. */
static void word_lists(void **state) {
  (void)state;
  const char *words[] = {"xray", "folded", "pprof"};
  const char *notes[] = {"the log", NULL, "<log>.pb"};
  char buf[64];
  xr_options_word_list(buf, sizeof buf, words, NULL, 3);
  assert_string_equal(buf, "xray, folded and pprof");
  xr_options_word_list(buf, sizeof buf, words, notes, 3);
  assert_string_equal(buf, "xray (the log), folded and pprof (<log>.pb)");
  xr_options_word_list(buf, sizeof buf, words, NULL, 1);
  assert_string_equal(buf, "xray");
  xr_options_word_list(buf, 10, words, notes, 3);
  assert_string_equal(buf, "xray (the");
  assert_int_equal(xr_options_word_set("pprof+xray", words, 3), 5);
  assert_int_equal(xr_options_word_set("xray,json", words, 3), 0);
}

int main(void) {
#define T(f) cmocka_unit_test_setup(f, reset)
  const struct CMUnitTest tests[] = {
      T(defaults),
      T(word_lists),
      T(null_and_empty_text_change_nothing),
      T(every_type_and_every_separator),
      T(value_to_the_next_blank),
      T(bool_spellings),
      T(int_and_uptr_bounds),
      T(uptr_hex),
      T(repeated_separators_are_harmless),
      T(quotes),
      T(unterminated_quote_stops_parsing),
      T(text_after_closing_quote),
      T(garbage_values_keep_previous),
      T(overflow),
      T(negative_uptr),
      T(out_of_range),
      T(missing_equals),
      T(empty_values),
      T(ten_kilobyte_inputs),
      T(string_exactly_at_capacity),
      T(non_utf8_bytes),
      T(unknown_flags_quiet_at_verbosity_0),
      T(unknown_flags_listed_at_verbosity_1),
      T(later_value_wins),
      T(help_prints_the_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
