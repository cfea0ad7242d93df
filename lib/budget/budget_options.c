/* xray_budget's value. The options table stores it as text (core's parser
 * has no decimal type, and a budget spelled wrongly must leave the budget
 * off rather than keep an earlier value): it is read here, once, at the
 * first instrumentation map. */
#include "budget/budget_options.h"

#include "core/base/report.h"
#include "core/options/options.h"

#include <string.h>

bool xr_budget_parse_percent(const char *text, double *out) {
  enum { MAX_DECIMALS = 6 };
  uint64_t whole = 0, frac = 0, scale = 1;
  const char *p = text;
  if (p == NULL || *p < '0' || *p > '9')
    return false;
  for (; *p >= '0' && *p <= '9'; p++) {
    whole = whole * 10 + (uint64_t)(*p - '0');
    if (whole > 1000)
      return false;
  }
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9')
      return false;
    for (int n = 0; *p >= '0' && *p <= '9'; p++, n++) {
      if (n == MAX_DECIMALS)
        return false;
      frac = frac * 10 + (uint64_t)(*p - '0');
      scale *= 10;
    }
  }
  if (*p != '\0')
    return false;
  double v = (double)whole + (double)frac / (double)scale;
  if (v > XR_BUDGET_PERCENT_MAX)
    return false;
  *out = v;
  return true;
}

double xr_budget_option_percent(void) {
  const char *text = xr_flags.xray_budget;
  double percent = 0;
  if (text[0] == '\0')
    return 0;
  if (!xr_budget_parse_percent(text, &percent)) {
    static int said;
    xr_report_once(&said, XR_ERROR, "XRAY_OPTIONS: xray_budget='%s' is not a "
                   "percent from 0 to 100 (e.g. 2 or 0.5): the budget is off", text);
    return 0;
  }
  return percent;
}

void xr_budget_percent_text(double percent, char *buf, size_t cap) {
  if (cap == 0)
    return;
  if (!(percent >= 0))
    percent = 0;
  uint64_t milli = (uint64_t)(percent * 1000 + 0.5);
  char text[32];
  size_t n = 0;
  char digits[24];
  size_t d = 0;
  uint64_t whole = milli / 1000;
  do {
    digits[d++] = (char)('0' + whole % 10);
    whole /= 10;
  } while (whole != 0);
  while (d > 0)
    text[n++] = digits[--d];
  unsigned frac = (unsigned)(milli % 1000);
  if (frac != 0) {
    text[n++] = '.';
    for (unsigned div = 100; frac != 0; div /= 10) {
      text[n++] = (char)('0' + frac / div);
      frac %= div;
    }
  }
  text[n] = '\0';
  size_t len = n < cap - 1 ? n : cap - 1;
  memcpy(buf, text, len);
  buf[len] = '\0';
}
