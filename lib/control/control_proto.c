/* The control protocol's request parser (control_proto.h): strict and
 * bounded, because a request is the one thing another process hands us.
 * Fuzzed by test/fuzz/fuzz_control_proto.c. */
#include "control_proto.h"

#include <string.h>

struct verb_spec {
  const char *name;
  int min_args, max_args;
  bool last_is_rest;            /* the last argument runs to the end */
  uint32_t lo[XR_CTL_MAX_ARGS]; /* numeric arguments: range, lo < hi */
  uint32_t hi[XR_CTL_MAX_ARGS];
  bool percent;                 /* the only argument is a percent */
};

/* One row per verb, in enum order. */
static const struct verb_spec verbs[XR_CTL_VERB_COUNT] = {
    [XR_CTL_HELLO] = {"hello", 0, 0, false, {0}, {0}, false},
    [XR_CTL_STATUS] = {"status", 0, 0, false, {0}, {0}, false},
    [XR_CTL_PATCH] = {"patch", 1, 1, true, {0}, {0}, false},
    [XR_CTL_UNPATCH] = {"unpatch", 1, 1, true, {0}, {0}, false},
    [XR_CTL_START] = {"start", 1, 2, true, {0}, {0}, false},
    [XR_CTL_STOP] = {"stop", 0, 0, false, {0}, {0}, false},
    [XR_CTL_FLUSH] = {"flush", 0, 0, false, {0}, {0}, false},
    [XR_CTL_SNAPSHOT] = {"snapshot", 0, 0, false, {0}, {0}, false},
    /* seconds 1..3600, mode, output kind, patterns */
    [XR_CTL_RECORD] = {"record", 4, 4, true, {1, 0, 0, 0}, {3600, 0, 0, 0}, false},
    /* interval 100 ms..60 s, rows 1..100 */
    [XR_CTL_TOP] = {"top", 2, 2, false, {100, 1, 0, 0}, {60000, 100, 0, 0}, false},
    /* percent 0..100 */
    [XR_CTL_BUDGET] = {"budget", 1, 1, false, {0}, {0}, true},
    /* a SPEC (spaces inside: C++ names), --clear, or nothing (show) */
    [XR_CTL_ARGS] = {"args", 0, 1, true, {0}, {0}, false},
};

const char *xr_ctl_mode_name(const char *given) {
  static const char *const modes[] = {"xray-basic", "xray-fdr", "xray-profiling"};
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (strcmp(given, modes[i]) == 0 || strcmp(given, modes[i] + 5) == 0)
      return modes[i];
  return NULL;
}

/* A decimal number in [lo, hi] made of digits only, no leading zero. */
static bool number_in(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  uint64_t v = 0;
  size_t n = strlen(s);
  if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
    return false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v < lo || v > hi)
    return false;
  *out = (uint32_t)v;
  return true;
}

bool xr_ctl_percent(const char *s, uint32_t *thousandths) {
  uint32_t whole = 0, frac = 0;
  size_t i = 0, digits = 0;
  for (; s[i] >= '0' && s[i] <= '9'; i++, digits++) {
    if (digits == 3 || (digits == 1 && s[0] == '0'))
      return false;
    whole = whole * 10 + (uint32_t)(s[i] - '0');
  }
  if (digits == 0)
    return false;
  if (s[i] == '.') {
    size_t n = 0;
    for (i++; s[i] >= '0' && s[i] <= '9'; i++, n++) {
      if (n == 3)
        return false;
      frac = frac * 10 + (uint32_t)(s[i] - '0');
    }
    if (n == 0 || s[i - 1] == '0')
      return false;
    while (n++ < 3)
      frac *= 10;
  }
  if (s[i] != '\0' || whole * 1000 + frac > 100000)
    return false;
  *thousandths = whole * 1000 + frac;
  return true;
}

int xr_ctl_parse(char *buf, size_t len, struct xr_ctl_request *out,
                 const char **why) {
  static const char magic[] = XR_CTL_MAGIC " ";
  memset(out, 0, sizeof *out);
  if (len > XR_CTL_MAX_REQUEST) {
    *why = "request too long (at most 4096 bytes)";
    return -1;
  }
  if (len == 0 || buf[len - 1] != '\n') {
    *why = "request does not end with a newline (truncated?)";
    return -1;
  }
  for (size_t i = 0; i + 1 < len; i++)
    if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e) {
      *why = "request holds a byte outside printable ASCII";
      return -1;
    }
  buf[len - 1] = '\0';
  if (len - 1 < sizeof magic - 1 || memcmp(buf, magic, sizeof magic - 1) != 0) {
    *why = strncmp(buf, "xray/", 5) == 0
               ? "unsupported protocol version (this runtime speaks xray/1)"
               : "not an xray control request (expected 'xray/1 VERB ...')";
    return -1;
  }
  char *p = buf + sizeof magic - 1;
  size_t vlen = strcspn(p, " ");
  const struct verb_spec *spec = NULL;
  for (int v = 0; v < XR_CTL_VERB_COUNT; v++)
    if (strlen(verbs[v].name) == vlen && memcmp(p, verbs[v].name, vlen) == 0) {
      spec = &verbs[v];
      out->verb = (enum xr_ctl_verb)v;
    }
  if (spec == NULL) {
    *why = "unknown command";
    return -1;
  }
  p += vlen;
  while (*p == ' ' && out->argc < spec->max_args) {
    *p++ = '\0';
    bool rest = spec->last_is_rest && out->argc == spec->max_args - 1;
    size_t n = rest ? strlen(p) : strcspn(p, " ");
    if (n == 0) {
      *why = "empty argument";
      return -1;
    }
    out->argv[out->argc++] = p;
    p += n;
  }
  if (*p != '\0' || out->argc < spec->min_args) {
    *why = "wrong number of arguments";
    return -1;
  }
  for (int i = 0; i < out->argc; i++)
    if (spec->hi[i] != 0 &&
        !number_in(out->argv[i], spec->lo[i], spec->hi[i], &out->number[i])) {
      *why = "number out of range";
      return -1;
    }
  if (spec->percent && !xr_ctl_percent(out->argv[0], &out->thousandths)) {
    *why = "percent out of range (0 to 100, e.g. 2 or 0.5)";
    return -1;
  }
  return 0;
}
