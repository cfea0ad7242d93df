/* Diagnostics: "==PID==XRay: message" on stderr, one write(2) per line.
 *
 * Cold path only. Formats into a stack buffer (no malloc, no stdio locks) so
 * lines from several threads never interleave mid-line. */
#include "core/base/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int xr_verbosity = 0;

enum { XR_REPORT_LINE_MAX = 1024 };

static void report_v(const char *tag, const char *fmt, va_list ap) {
  char line[XR_REPORT_LINE_MAX];
  int saved_errno = errno; /* callers often report errno right after */
  int n = snprintf(line, sizeof line, "==%d==%s", (int)getpid(), tag);
  if (n < 0 || (size_t)n >= sizeof line)
    n = 0;
  int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  if (m < 0)
    m = 0;
  size_t len = (size_t)n + (size_t)m;
  if (len > sizeof line - 2)
    len = sizeof line - 2; /* truncated: keep room for the newline */
  if (len == 0 || line[len - 1] != '\n')
    line[len++] = '\n';
  const char *p = line;
  while (len > 0) {
    ssize_t w = write(STDERR_FILENO, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break; /* stderr closed: nothing sensible left to do */
    p += w;
    len -= (size_t)w;
  }
  errno = saved_errno;
}

void xr_report(enum xr_report_level level, const char *fmt, ...) {
  if ((int)level > __atomic_load_n(&xr_verbosity, __ATOMIC_RELAXED))
    return;
  va_list ap;
  va_start(ap, fmt);
  report_v("XRay: ", fmt, ap);
  va_end(ap);
}

enum xr_report_level xr_hint_level(void) {
  return isatty(STDERR_FILENO) ? XR_ERROR : XR_INFO;
}

void xr_report_once(int *once, enum xr_report_level level, const char *fmt,
                    ...) {
  if ((int)level > __atomic_load_n(&xr_verbosity, __ATOMIC_RELAXED))
    return;
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
    return;
  va_list ap;
  va_start(ap, fmt);
  report_v("XRay: ", fmt, ap);
  va_end(ap);
}

void xr_report_untagged(enum xr_report_level level, const char *fmt, ...) {
  if ((int)level > __atomic_load_n(&xr_verbosity, __ATOMIC_RELAXED))
    return;
  va_list ap;
  va_start(ap, fmt);
  report_v("", fmt, ap);
  va_end(ap);
}
