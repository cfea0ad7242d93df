/* Calls' argument values in `xrayctl report` (docs/control.md, "Reading
 * files"): the values of each thread's open calls, kept until they end,
 * and per function the slowest calls that had values, with them. A trace
 * without values costs nothing here: a frame's handle is 0. */
#ifndef XRAYCTL_CALL_VALUES_H
#define XRAYCTL_CALL_VALUES_H

#include "core/modes/arg_values.h"

#include <stdio.h>

/* The values of one thread's open calls, innermost last. */
struct ctl_open_values {
  struct xr_arg_call *v;
  size_t n, cap;
};

/* Keeps entry values c of the call just opened: its handle (not 0), or 0
 * when out of memory (the call goes on without them). */
uint32_t ctl_values_keep(struct ctl_open_values *o, const struct xr_arg_call *c);
/* The values of the call of handle h, which ends (the calls open after it
 * ended before it: h is the last kept); valid until the next keep. */
const struct xr_arg_call *ctl_values_end(struct ctl_open_values *o, uint32_t h);
void ctl_values_free(struct ctl_open_values *o);

/* A function's slowest calls with values, at most `keep`, slowest first. */
struct ctl_slowest;

/* A call of `ticks` with entry values args and return value ret (either
 * NULL): kept when among the `keep` slowest of *s (created on the first).
 * False when out of memory. */
bool ctl_slowest_offer(struct ctl_slowest **s, unsigned keep, uint64_t ticks,
                       const struct xr_arg_call *args, const struct xr_arg_call *ret);
/* Offers every call of `from` to *into. */
bool ctl_slowest_merge(struct ctl_slowest **into, const struct ctl_slowest *from,
                       unsigned keep);
/* One line per call, slowest first: two spaces, its duration in ns
 * (ticks at hz), two spaces, then its values "NAME=VALUE" separated by
 * spaces (docs/control.md has their text). */
void ctl_slowest_print(FILE *out, const struct ctl_slowest *s, uint64_t hz);
void ctl_slowest_free(struct ctl_slowest *s);

#endif
