/* The control protocol, version 1: one request line per connection, one
 * reply, then the runtime closes the connection (docs/control.md).
 *
 *   request = "xray/1 " verb [" " argument]... "\n"    at most 4096 bytes
 *   reply   = "xray/1 ok\n" line... "end\n"
 *           | "xray/1 error " message "\n" "end\n"
 *           | "xray/1 denied " message "\n" "end\n"
 *
 * Requests hold printable ASCII only (0x20-0x7e) and one newline, at the
 * end. Arguments are separated by one space; a verb's last argument may be
 * "the rest of the line" (patterns and mode options hold spaces). Shared,
 * libc only, by the runtime (lib/control) and the client (tools/xrayctl). */
#ifndef XR_CONTROL_PROTO_H
#define XR_CONTROL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XR_CTL_MAGIC "xray/1"
#define XR_CTL_MAX_REQUEST 4096
#define XR_CTL_MAX_ARGS 4

enum xr_ctl_verb {
  XR_CTL_HELLO,    /* -> "PID PROGRAM MODE STATE" */
  XR_CTL_STATUS,   /* -> "key: value" lines */
  XR_CTL_PATCH,    /* PATTERNS -> functions matched */
  XR_CTL_UNPATCH,  /* PATTERNS -> functions matched */
  XR_CTL_START,    /* MODE [OPTIONS] -> the mode's status */
  XR_CTL_STOP,     /* -> files written, one absolute path per line */
  XR_CTL_FLUSH,    /* -> files written */
  XR_CTL_SNAPSHOT, /* -> the snapshot's path */
  XR_CTL_RECORD,   /* SECONDS MODE xray|chrome|perfetto PATTERNS -> files */
  XR_CTL_TOP,      /* MILLISECONDS ROWS -> "calls local_ns name" rows */
  XR_CTL_BUDGET,   /* PERCENT -> the overhead budget as set */
  XR_CTL_ARGS,     /* [SPEC | --clear] -> the SPEC in effect, per pattern */
  XR_CTL_VERB_COUNT
};

struct xr_ctl_request {
  enum xr_ctl_verb verb;
  int argc;
  const char *argv[XR_CTL_MAX_ARGS]; /* NUL-terminated, inside the buffer */
  uint32_t number[XR_CTL_MAX_ARGS];  /* numeric arguments, checked */
  uint32_t thousandths; /* a PERCENT argument in thousandths of a percent */
};

/* Parses buf[0..len) in place (arguments are cut with NULs). Returns 0, or
 * -1 with *why set to a static message: too long, not ending in exactly one
 * newline, a byte outside 0x20-0x7e, another version, an unknown verb, a
 * wrong number of arguments, a number or percent out of range. Never reads
 * past len. */
int xr_ctl_parse(char *buf, size_t len, struct xr_ctl_request *out,
                 const char **why);

/* A percent as the protocol spells it: 0 to 100, decimal digits without a
 * leading zero, and optionally '.' and one to three digits, the last not
 * '0' ("2", "0.5", "12.25"): one spelling per value. True and *thousandths
 * set (thousandths of a percent), or false. */
bool xr_ctl_percent(const char *s, uint32_t *thousandths);

/* The built-in mode a user names ("fdr" or "xray-fdr"), or NULL. */
const char *xr_ctl_mode_name(const char *given);

#endif
