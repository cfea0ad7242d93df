/* The SPEC of argument capture (lib/args/args_spec.c): what it reads, how
 * it prints back normalised, and every way it refuses, each message
 * exact, for both ports' limits (a parameter, so either build tests
 * both). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "args/args_spec.h"

static const struct xr_args_port x86 = {"x86-64", 6, 8};
static const struct xr_args_port arm = {"AArch64", 8, 8};

static struct xr_args_spec spec; /* 10 KB: not on the stack of every test */

/* text reads on port; its normalised printing is `want`. */
static void reads_as(const struct xr_args_port *port, const char *text, const char *want) {
  char err[XR_ARGS_ERROR_MAX] = "", out[XR_ARGS_PRINT_MAX];
  if (xr_args_spec_parse(text, port, &spec, err, sizeof err) != 0)
    fail_msg("'%s' refused on %s: %s", text, port->name, err);
  xr_args_spec_print(&spec, out, sizeof out);
  if (strcmp(out, want) != 0)
    fail_msg("'%s' on %s printed '%s', expected '%s'", text, port->name, out, want);
  /* the normalised text reads back to itself */
  assert_int_equal(xr_args_spec_parse(out, port, &spec, err, sizeof err), 0);
  char again[XR_ARGS_PRINT_MAX];
  xr_args_spec_print(&spec, again, sizeof again);
  assert_string_equal(again, out);
}

/* text is refused on port with exactly this message. */
static void refused(const struct xr_args_port *port, const char *text, const char *want) {
  char err[XR_ARGS_ERROR_MAX] = "";
  if (xr_args_spec_parse(text, port, &spec, err, sizeof err) != -1)
    fail_msg("'%s' read on %s", text, port->name);
  if (strcmp(err, want) != 0)
    fail_msg("'%s' on %s said\n  '%s', expected\n  '%s'", text, port->name, err, want);
}

static void defaults_and_formats(void **state) {
  (void)state;
  reads_as(&x86, "lookup@arg1,arg2/s,retval", "lookup@arg1/d,arg2/s,retval/d");
  reads_as(&x86, "scale*@fparg1,retval/f", "scale*@fparg1/f,retval/f");
  reads_as(&x86, "f@arg1/d,arg2/u,arg3/x,arg4/p,arg5/s,fparg1/f32,fparg2/x,retval/f32",
           "f@arg1/d,arg2/u,arg3/x,arg4/p,arg5/s,fparg1/f32,fparg2/x,retval/f32");
  reads_as(&x86, "f@retval/s", "f@retval/s");
  reads_as(&x86, "f@retval/p;g@fparg8/d", "f@retval/p;g@fparg8/d");
  /* SPEC order kept, retval where it was written */
  reads_as(&x86, "f@retval,fparg2,arg3", "f@retval/d,fparg2/f,arg3/d");
}

static void blanks_items_and_patterns(void **state) {
  (void)state;
  reads_as(&x86, "  lookup @ arg1 , arg2 / s ;; scale*@fparg1 ; ",
           "lookup@arg1/d,arg2/s;scale*@fparg1/f");
  /* a pattern keeps its inner blanks and commas (C++), and every glob byte */
  reads_as(&x86, "ns::f<int, char>(int, long)@arg2", "ns::f<int, char>(int, long)@arg2/d");
  reads_as(&x86, "[a-c]?\\*x@arg1", "[a-c]?\\*x@arg1/d");
  reads_as(&x86, "caf\xc3\xa9@arg1", "caf\xc3\xa9@arg1/d");
  /* nothing: no SPEC */
  reads_as(&x86, "", "");
  reads_as(&x86, " ; ;", "");
  assert_int_equal(xr_args_spec_parse(NULL, &x86, &spec, NULL, 0), 0);
  assert_int_equal(spec.patterns, 0);
}

static void what_it_holds(void **state) {
  (void)state;
  char err[XR_ARGS_ERROR_MAX];
  assert_int_equal(xr_args_spec_parse("a*@arg2/x,retval;b@fparg3/f32", &x86, &spec, err,
                                      sizeof err), 0);
  assert_int_equal(spec.patterns, 2);
  assert_string_equal(spec.text + spec.p[0].at, "a*");
  assert_int_equal(spec.p[0].len, 2);
  assert_int_equal(spec.p[0].count, 2);
  assert_int_equal(spec.p[0].v[0].what, XR_ARG_WHAT(XR_ARG_KIND_INT, 2));
  assert_int_equal(spec.p[0].v[0].format, XR_ARGF_X);
  assert_int_equal(spec.p[0].v[1].what, XR_ARG_WHAT(XR_ARG_KIND_RET, 0));
  assert_int_equal(spec.p[0].v[1].format, XR_ARGF_D);
  assert_string_equal(spec.text + spec.p[1].at, "b");
  assert_int_equal(spec.p[1].v[0].what, XR_ARG_WHAT(XR_ARG_KIND_FP, 3));
  assert_int_equal(spec.p[1].v[0].format, XR_ARGF_F32);
  char one[64];
  assert_int_equal(xr_args_pattern_print(&spec, 1, one, sizeof one), strlen("b@fparg3/f32"));
  assert_string_equal(one, "b@fparg3/f32");
  /* cut when short, with the whole length returned */
  char small[6];
  assert_int_equal(xr_args_spec_print(&spec, small, sizeof small),
                   strlen("a*@arg2/x,retval/d;b@fparg3/f32"));
  assert_string_equal(small, "a*@ar");
}

/* Every register each port passes arguments in, and no more. */
static void ports_limits(void **state) {
  (void)state;
  reads_as(&x86, "f@arg1,arg2,arg3,arg4,arg5,arg6,fparg1,fparg2,fparg3,fparg4,fparg5,fparg6,"
                 "fparg7,fparg8,retval",
           "f@arg1/d,arg2/d,arg3/d,arg4/d,arg5/d,arg6/d,fparg1/f,fparg2/f,fparg3/f,"
           "fparg4/f,fparg5/f,fparg6/f,fparg7/f,fparg8/f,retval/d");
  refused(&x86, "lookup@arg7",
          "'arg7' in 'lookup@arg7': x86-64 passes integer arguments 1-6 in registers");
  reads_as(&arm, "lookup@arg7,arg8/s", "lookup@arg7/d,arg8/s");
  refused(&arm, "lookup@arg9",
          "'arg9' in 'lookup@arg9': AArch64 passes integer arguments 1-8 in registers");
  /* AArch64: 17 values (16 at the entry, retval at the exit) */
  reads_as(&arm, "f@arg1/s,arg2/s,arg3/s,arg4/s,arg5/s,arg6/s,arg7/s,arg8/s,fparg1,fparg2,"
                 "fparg3,fparg4,fparg5,fparg6,fparg7,fparg8,retval/s",
           "f@arg1/s,arg2/s,arg3/s,arg4/s,arg5/s,arg6/s,arg7/s,arg8/s,fparg1/f,fparg2/f,"
           "fparg3/f,fparg4/f,fparg5/f,fparg6/f,fparg7/f,fparg8/f,retval/s");
  assert_int_equal(spec.p[0].count, 17);
  refused(&arm, "f@fparg9",
          "'fparg9' in 'f@fparg9': AArch64 passes floating-point arguments 1-8 in registers");
  refused(&x86, "f@arg0", "'arg0' in 'f@arg0': x86-64 passes integer arguments 1-6 in registers");
  refused(&x86, "f@fparg0",
          "'fparg0' in 'f@fparg0': x86-64 passes floating-point arguments 1-8 in registers");
  refused(&x86, "f@arg10",
          "'arg10' in 'f@arg10': x86-64 passes integer arguments 1-6 in registers");
  /* the build's own port is one of the two */
  assert_true(xr_args_this_port.int_regs == 6 || xr_args_this_port.int_regs == 8);
  assert_int_equal(xr_args_this_port.fp_regs, 8);
}

static void every_refusal(void **state) {
  (void)state;
  refused(&x86, "lookup", "'lookup': no '@' between the pattern and its values "
                          "(PATTERN@VALUE[,VALUE...])");
  refused(&x86, "a@arg1;lookup,arg1", "'lookup,arg1': no '@' between the pattern and its "
                                      "values (PATTERN@VALUE[,VALUE...])");
  refused(&x86, " @arg1", "'@arg1': no pattern before '@'");
  refused(&x86, "lookup@ ", "'lookup@': no value after '@' (argN, fpargN or retval)");
  refused(&x86, "f@arg1,,arg2", "an empty value in 'f@arg1,,arg2' (two commas, or one at "
                                "the end)");
  refused(&x86, "f@arg1,", "an empty value in 'f@arg1,' (two commas, or one at the end)");
  refused(&x86, "f@foo", "'foo' in 'f@foo': not a value (argN, fpargN or retval)");
  refused(&x86, "f@arg", "'arg' in 'f@arg': not a value (argN, fpargN or retval)");
  refused(&x86, "f@arg01", "'arg01' in 'f@arg01': not a value (argN, fpargN or retval)");
  refused(&x86, "f@arg1x", "'arg1x' in 'f@arg1x': not a value (argN, fpargN or retval)");
  refused(&x86, "f@ARG1", "'ARG1' in 'f@ARG1': not a value (argN, fpargN or retval)");
  refused(&x86, "f@retval2", "'retval2' in 'f@retval2': not a value (argN, fpargN or "
                             "retval)");
  /* a ',' for a ';': the second pattern reads as a value */
  refused(&x86, "f@arg1,g@arg2", "'g@arg2' in 'f@arg1,g@arg2': not a value (argN, fpargN "
                                 "or retval)");
  refused(&x86, "f@arg1/q", "'/q' in 'f@arg1/q': not a format (/d /u /x /p /s /f /f32)");
  refused(&x86, "f@arg1/", "'/' in 'f@arg1/': not a format (/d /u /x /p /s /f /f32)");
  refused(&x86, "f@arg1/i32", "'/i32' in 'f@arg1/i32': not a format (/d /u /x /p /s /f "
                              "/f32)");
  refused(&x86, "f@arg1/S", "'/S' in 'f@arg1/S': not a format (/d /u /x /p /s /f /f32)");
  refused(&x86, "f@arg2/f", "'arg2/f' in 'f@arg2/f': argN is an integer register; /f and "
                            "/f32 are for fpargN and retval");
  refused(&x86, "f@arg2/f32", "'arg2/f32' in 'f@arg2/f32': argN is an integer register; /f "
                              "and /f32 are for fpargN and retval");
  refused(&x86, "f@fparg1/s", "'fparg1/s' in 'f@fparg1/s': fpargN is a floating-point "
                              "register, not a pointer; /s is for argN and retval");
  refused(&x86, "f@arg1,arg1/x", "'arg1/x' in 'f@arg1,arg1/x': arg1 is named twice");
  refused(&x86, "f@retval,arg2,retval/f", "'retval/f' in 'f@retval,arg2,retval/f': retval is "
                                          "named twice");
  refused(&x86, "f@\x01rg1", "'f@\\x01rg1': a control byte (0x01) in the SPEC");
  refused(&x86, "f\n@arg1", "'f\\x0a@arg1': a control byte (0x0a) in the SPEC");
  /* the first bad item is named; nothing of a refused SPEC is kept */
  refused(&x86, "ok@arg1;bad@arg9;worse", "'arg9' in 'bad@arg9': x86-64 passes integer "
                                          "arguments 1-6 in registers");
}

static void bounds(void **state) {
  (void)state;
  static char text[XR_ARGS_SPEC_MAX + 64];
  /* 64 patterns, and a 65th */
  size_t at = 0;
  for (int i = 0; i < XR_ARGS_PATTERNS_MAX; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, "f%d@arg1;", i);
  char err[XR_ARGS_ERROR_MAX];
  assert_int_equal(xr_args_spec_parse(text, &x86, &spec, err, sizeof err), 0);
  assert_int_equal(spec.patterns, XR_ARGS_PATTERNS_MAX);
  snprintf(text + at, sizeof text - at, "extra@arg2");
  refused(&x86, text, "'extra@arg2': more than 64 patterns");
  /* XR_ARGS_SPEC_MAX bytes read; one more is refused */
  memset(text, 'a', XR_ARGS_SPEC_MAX);
  memcpy(text + XR_ARGS_SPEC_MAX - 5, "@arg1", 5);
  text[XR_ARGS_SPEC_MAX] = '\0';
  assert_int_equal(xr_args_spec_parse(text, &x86, &spec, err, sizeof err), 0);
  assert_int_equal(spec.p[0].len, XR_ARGS_SPEC_MAX - 5);
  memset(text, 'a', XR_ARGS_SPEC_MAX + 1);
  memcpy(text + XR_ARGS_SPEC_MAX - 4, "@arg1", 5);
  text[XR_ARGS_SPEC_MAX + 1] = '\0';
  refused(&x86, text, "the SPEC is longer than 4095 bytes");
  /* a long item is shown cut at 60 bytes */
  memset(text, 'b', 100);
  memcpy(text + 100, "@arg9", 6);
  char want[XR_ARGS_ERROR_MAX];
  snprintf(want, sizeof want, "'arg9' in '%.60s...': x86-64 passes integer arguments 1-6 "
           "in registers", text);
  refused(&x86, text, want);
  /* a message longer than the caller's room is cut, NUL-terminated */
  char tiny[8];
  assert_int_equal(xr_args_spec_parse("f@arg9", &x86, &spec, tiny, sizeof tiny), -1);
  assert_string_equal(tiny, "'arg9' ");
  assert_int_equal(xr_args_spec_parse("f@arg9", &x86, &spec, NULL, 0), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_and_formats), cmocka_unit_test(blanks_items_and_patterns),
      cmocka_unit_test(what_it_holds),        cmocka_unit_test(ports_limits),
      cmocka_unit_test(every_refusal),        cmocka_unit_test(bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
