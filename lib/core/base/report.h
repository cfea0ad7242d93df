/* Diagnostics: one line to stderr, "==PID==XRay: message", filtered by the
 * verbosity option. Safe to call from any thread; uses no malloc (formats into
 * a stack buffer and writes it with one write(2)). Not async-signal-safe
 * formatting of floating point: pass integers only. */
#ifndef XR_REPORT_H
#define XR_REPORT_H

#include "core/base/common.h"

/* Level of a message. XR_ERROR is printed at every verbosity: it is reserved
 * for failures the user caused or asked about (a bad option, a log that
 * cannot be written). XR_INFO needs verbosity >= 1, XR_DEBUG >= 2. */
enum xr_report_level { XR_ERROR = 0, XR_INFO = 1, XR_DEBUG = 2 };

/* Current verbosity (the `verbosity` option); set by init, read by all. */
XR_HIDDEN extern int xr_verbosity;

XR_HIDDEN void xr_report(enum xr_report_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Like xr_report, but prints the message at most once per process for a
 * given *once flag (a static int owned by the caller). */
XR_HIDDEN void xr_report_once(int *once, enum xr_report_level level,
                              const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like xr_report, without the "XRay: " tag: for the few lines whose exact
 * compiler-rt wording ("==PID==message") scripts grep for. */
XR_HIDDEN void xr_report_untagged(enum xr_report_level level, const char *fmt,
                                  ...) __attribute__((format(printf, 2, 3)));

/* Level of a hint: a message that the user would want because they asked
 * for a trace that will not come (or come out empty). XR_ERROR (printed at
 * every verbosity) when stderr is a terminal, a person reads it; XR_INFO
 * otherwise, so scripts and logs see exactly the program's own output at
 * verbosity 0. */
XR_HIDDEN enum xr_report_level xr_hint_level(void);

#endif
