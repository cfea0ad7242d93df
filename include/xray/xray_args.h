/* XRay extension: argument capture.
 *
 * A SPEC names functions by pattern and the values to keep at each call:
 * integer and pointer arguments (argN), floating-point arguments
 * (fpargN), the return value (retval), each shown as a signed or unsigned
 * number, hex, pointer, C string (the first 64 bytes, read without ever
 * faulting) or float:
 *
 *   lookup@arg1,arg2/s,retval;scale*@fparg1,retval/f
 *
 * (uftrace's -A/-R syntax). The running mode (basic, FDR) writes the
 * values with each call's events; functions the SPEC does not name keep
 * the usual paths, at no cost. The same as XRAY_OPTIONS="xray_args=SPEC"
 * and `xrayctl args PID SPEC`; docs/arguments.md says what each value
 * keeps, the formats and the limits of each CPU.
 *
 * Cold path: not async-signal-safe, do not call from a handler.
 *
 * Not part of compiler-rt's runtime. Valid C11 and C++11 and later.
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_ARGS_H
#define XRAY_XRAY_ARGS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the functions below return. */
enum XRayArgsResult {
  XRAY_ARGS_OK = 0,
  /* A SPEC that does not read (the message says which part and why;
   * __xray_args_set_error returns it). The SPEC in effect stays. */
  XRAY_ARGS_INVALID = -1,
  /* The runtime is not initialised (no instrumentation map). */
  XRAY_ARGS_NOT_INITIALIZED = -2,
  /* The SPEC is in effect, but the sleds of some functions could not be
   * pointed at the argument trampolines (another thread kept the patcher
   * busy, or a page could not be written): their values are missing
   * until a later call succeeds. The message says which object. */
  XRAY_ARGS_FAILED = -3
};
#ifndef __cplusplus
typedef enum XRayArgsResult XRayArgsResult;
#endif

/* Makes spec the SPEC in effect, for the functions loaded now and for
 * every shared object loaded later; "" or NULL: none (as
 * __xray_args_clear). A thread inside a function while it changes keeps
 * each call's record whole: one call's values come from one SPEC. Returns
 * XRAY_ARGS_OK, INVALID (said at verbosity 1), NOT_INITIALIZED or
 * FAILED. */
int __xray_args_set(const char *spec);

/* The same, with the reason of an INVALID or FAILED result in err (cap
 * bytes, NUL-terminated, cut when short; "" after OK; 320 bytes always
 * suffice), said nowhere else. err may be NULL when cap is 0. */
int __xray_args_set_error(const char *spec, char *err, size_t cap);

/* No SPEC from now on: every function's sleds go back to the usual
 * trampolines. Returns XRAY_ARGS_OK, NOT_INITIALIZED or FAILED. */
int __xray_args_clear(void);

/* The SPEC in effect as the runtime understood it, normalised (every
 * value with its format: "lookup@arg1/d,arg2/s,retval/d"), into buf (cap
 * bytes, NUL-terminated, cut when short); "" when none. Returns the
 * length of the whole text, as snprintf does. */
size_t __xray_args_get(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
