/* The SPEC of argument capture (docs/arguments.md): uftrace's -A/-R
 * syntax, read strictly and printed back normalised. Pure: no state, no
 * allocation; the port's limits are a parameter, so both ports' rules are
 * tested on either.
 *
 *   SPEC    = ITEM [";" ITEM]...          empty items are skipped
 *   ITEM    = PATTERN "@" VALUE ["," VALUE]...
 *   PATTERN = a glob as in xray_patch= (core/match/glob.h), up to the
 *             item's first '@' (so it may hold ',': C++ templates)
 *   VALUE   = ("argN" | "fpargN" | "retval") ["/" FORMAT]
 *   FORMAT  = d | u | x | p | s | f | f32
 * Blanks around an item, a pattern and a value are dropped. Defaults as
 * uftrace's: argN and retval /d, fpargN /f. argN takes no /f or /f32 (an
 * integer register), fpargN no /s (not a pointer); retval/f and
 * retval/f32 read the floating-point return register. A value is named at
 * most once per pattern, so an entry holds at most XR_ARG_INT_REGS +
 * XR_ARG_FP_REGS values (<= XR_ARGS_MAX) of which at most XR_ARG_INT_REGS
 * strings (<= XR_ARG_STRINGS_MAX), and an exit one. */
#ifndef XR_ARGS_SPEC_H
#define XR_ARGS_SPEC_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"

/* A SPEC holds at most this many bytes (as an XRAY_OPTIONS string value),
 * and this many patterns. */
#define XR_ARGS_SPEC_MAX 4095
#define XR_ARGS_PATTERNS_MAX 64
/* Room for any message of xr_args_spec_parse, and for any SPEC
 * normalised (with its NUL: a value gains at most 2 bytes of format per
 * 5 it takes). */
#define XR_ARGS_ERROR_MAX 320
#define XR_ARGS_PRINT_MAX (2 * XR_ARGS_SPEC_MAX + 2)

/* What a port's registers allow a SPEC to name. */
struct xr_args_port {
  const char *name; /* in messages: "x86-64" */
  uint8_t int_regs; /* argN: 1 .. int_regs (at most 8) */
  uint8_t fp_regs;  /* fpargN: 1 .. fp_regs (at most 8) */
};
/* This build's port (core/dispatch/hot_tables.h). */
XR_HIDDEN extern const struct xr_args_port xr_args_this_port;

/* One value as the SPEC asks for it: what (XR_ARG_WHAT(kind, n); retval's
 * n is 0) and how it is shown (enum xr_arg_format). */
struct xr_args_value_spec {
  uint8_t what;
  uint8_t format;
};

/* One pattern and its values in SPEC order, retval where it was written. */
struct xr_args_pattern {
  uint16_t at, len; /* the glob: text[at .. at + len), NUL after it */
  uint8_t count;
  struct xr_args_value_spec v[XR_ARGS_MAX + 1];
};

struct xr_args_spec {
  uint8_t patterns; /* 0: no SPEC */
  struct xr_args_pattern p[XR_ARGS_PATTERNS_MAX];
  char text[XR_ARGS_SPEC_MAX + 1];
};

/* Reads text (a C string, NULL: none) into *out for port. Returns 0 (a
 * SPEC with no item is valid: out->patterns 0), or -1 with the reason in
 * err (cap bytes, XR_ARGS_ERROR_MAX suffice): the bad part in quotes, the
 * item it is in, and why, e.g. "'arg7' in 'lookup@arg7': x86-64 passes
 * integer arguments 1-6 in registers". Bytes of the SPEC in a message are
 * printable (others as \xNN) and long items are cut. *out is undefined
 * after -1. */
XR_HIDDEN int xr_args_spec_parse(const char *text, const struct xr_args_port *port,
                                 struct xr_args_spec *out, char *err, size_t cap);

/* Pattern k of s, normalised ("lookup@arg1/d,arg2/s,retval/d": every
 * value with its format), into buf (cap bytes, NUL-terminated, cut when
 * short). Returns the length of the whole text (as snprintf). */
XR_HIDDEN size_t xr_args_pattern_print(const struct xr_args_spec *s, size_t k, char *buf,
                                       size_t cap);
/* The whole SPEC normalised, patterns joined by ';' ("" when none); as
 * xr_args_pattern_print. A normalised SPEC reads back to the same one. */
XR_HIDDEN size_t xr_args_spec_print(const struct xr_args_spec *s, char *buf, size_t cap);

#endif
