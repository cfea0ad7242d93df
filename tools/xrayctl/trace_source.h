/* What xrayctl's file commands (report, convert) read: the trace file, its
 * format, its clock and the names of its function ids, opened once. */
#ifndef XRAYCTL_TRACE_SOURCE_H
#define XRAYCTL_TRACE_SOURCE_H

#include "trace_read.h"

struct ctl_names;

struct ctl_source {
  const char *path;
  struct ctl_in in;
  struct ctl_trace_info info;
  xr_fn_name_fn name; /* never NULL; "fn<id>" for ids nothing names */
  void *name_ctx;
  struct ctl_names *names;
  char fallback[24];
};

/* Opens path: its header, its clock (a profile has none in it: frequency_hz
 * when not 0, else the "# clock N Hz" line of the runtime's report beside
 * it, `<path>.txt`), and names from binary (-m; NULL: none) and from the
 * object map beside it (`<path>.map`). 0, or prints why not and returns 1
 * (a bad file) or 2 (a usage error). */
int ctl_source_open(struct ctl_source *s, const char *path, const char *binary,
                    uint64_t frequency_hz);

/* Prints in's error as "xrayctl: PATH: byte N: what" and returns 1. */
int ctl_source_failed(const struct ctl_source *s);

void ctl_source_close(struct ctl_source *s);

#endif
