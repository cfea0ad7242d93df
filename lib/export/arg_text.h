/* Captured values (core/modes/arg_values.h) as the trace writers and
 * xrayctl's report show them (docs/formats.md, "Argument values" of the
 * Chrome trace): a number's JSON text, and the word of a string that was
 * not read whole. Strings themselves are each writer's to escape. No
 * libc, no allocation: async-signal-safe (the crash-time writers use it). */
#ifndef XR_EXPORT_ARG_TEXT_H
#define XR_EXPORT_ARG_TEXT_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"

/* The longest text xr_arg_number_json writes, its NUL included. */
#define XR_ARG_NUMBER_MAX 40

/* Value v (any format but /s) as a JSON value, NUL-terminated in out;
 * returns its length:
 *  /d (and the default 0), /u  an integer: -9223372036854775808,
 *                              18446744073709551615;
 *  /x, /p                      a string of its hex digits: "0x1f", "0x0";
 *  /f, /f32                    a number that reads back as the same bits:
 *                              printf's %.17g (%.9g of the float's 32
 *                              bits), ".0" added to a whole number, so it
 *                              stays a float ("2.0", "-0.0", "1e+100");
 *                              infinities the strings "inf" and "-inf",
 *                              a NaN "nan:0x" and its bits in hex (16
 *                              digits; a float's 32 bits in 8);
 *  any other format             as /x. */
XR_HIDDEN size_t xr_arg_number_json(const struct xr_arg_value *v,
                                    char out[XR_ARG_NUMBER_MAX]);

/* For a string (/s) not read whole, what became of it: "null" (the
 * pointer was NULL), "unreadable", "cut" (XR_ARG_STRING_MAX bytes without
 * a NUL), "partial" (unreadable memory after the bytes read); NULL for a
 * string read whole and for every other value. */
XR_HIDDEN const char *xr_arg_status_word(const struct xr_arg_value *v);

/* Whether a string value has text to show (else a writer shows null):
 * not for a NULL or unreadable pointer. */
static inline bool xr_arg_has_text(const struct xr_arg_value *v) {
  return v->status != XR_ARGS_NULL && v->status != XR_ARGS_UNREADABLE;
}

#endif
