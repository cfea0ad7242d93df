/* The budget's options (budget_options.c): xray_budget's percent, read
 * strictly, and the percent's one spelling in messages. */
#ifndef XR_BUDGET_OPTIONS_H
#define XR_BUDGET_OPTIONS_H

#include "core/base/common.h"

/* The largest budget: the whole CPU time. */
#define XR_BUDGET_PERCENT_MAX 100.0

/* Reads text as a percent: decimal digits, optionally a '.' and up to 6
 * more digits ("2", "0.5", "12.25"), from 0 to XR_BUDGET_PERCENT_MAX;
 * nothing else (no sign, exponent, blank or '%'). True and *out set, or
 * false. Independent of the locale. */
XR_HIDDEN bool xr_budget_parse_percent(const char *text, double *out);

/* The percent XRAY_OPTIONS' xray_budget asks for: 0 when unset, 0 or
 * "0", or a bad value (said at every verbosity, once). */
XR_HIDDEN double xr_budget_option_percent(void);

/* Writes percent to buf as the user would: "2", "0.5", "1.25" (at most 3
 * decimals, no trailing zero). Async-signal-safe. */
XR_HIDDEN void xr_budget_percent_text(double percent, char *buf, size_t cap);

#endif
