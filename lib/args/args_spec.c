/* The SPEC parser and printer (args_spec.h). The text is the user's, or
 * hostile bytes from the control socket: every read is bounded by its
 * length, and a message shows the bytes it quotes printably. */
#include "args/args_spec.h"

#include "core/dispatch/hot_tables.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct xr_args_port xr_args_this_port = {XR_ARG_PORT_NAME, XR_ARG_INT_REGS,
                                               XR_ARG_FP_REGS};

/* Nothing of a SPEC breaks these limits: a value is named once per
 * pattern. */
_Static_assert(XR_ARG_INT_REGS + XR_ARG_FP_REGS <= XR_ARGS_MAX,
               "a SPEC's values of one entry must fit struct xr_arg_call");
_Static_assert(XR_ARG_INT_REGS <= XR_ARG_STRINGS_MAX,
               "a SPEC's strings of one entry must fit struct xr_arg_call");

/* A piece of the SPEC: start and length. */
struct piece {
  const char *s;
  size_t n;
};

static bool blank(char c) { return c == ' ' || c == '\t'; }

static struct piece trimmed(const char *s, size_t n) {
  while (n > 0 && blank(*s)) {
    s++;
    n--;
  }
  while (n > 0 && blank(s[n - 1]))
    n--;
  return (struct piece){s, n};
}

/* p shown in a message: printable bytes as they are, others as \xNN, cut
 * with "..." past 60 bytes. */
static const char *shown(struct piece p, char buf[256]) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  for (size_t i = 0; i < p.n; i++) {
    unsigned char c = (unsigned char)p.s[i];
    if (i == 60) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7f) {
      buf[o++] = (char)c;
    } else {
      buf[o++] = '\\';
      buf[o++] = 'x';
      buf[o++] = hex[c >> 4];
      buf[o++] = hex[c & 15];
    }
  }
  buf[o] = '\0';
  return buf;
}

static int fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
  if (cap > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static bool is(struct piece p, const char *word) {
  return p.n == strlen(word) && memcmp(p.s, word, p.n) == 0;
}

/* "1" .. "99" (no leading zero) after a stem of `stem` bytes; 0 otherwise. */
static unsigned number_after(struct piece p, size_t stem) {
  size_t n = p.n - stem;
  const char *d = p.s + stem;
  if (n == 0 || n > 2 || d[0] == '0')
    return 0;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (d[i] < '0' || d[i] > '9')
      return 0;
    v = v * 10 + (unsigned)(d[i] - '0');
  }
  return v;
}

/* One value of item `item` (for messages) into *v. */
static int parse_value(struct piece value, struct piece item, const struct xr_args_port *port,
                       struct xr_args_value_spec *v, char *err, size_t cap) {
  char a[256], b[256];
  if (value.n == 0)
    return fail(err, cap, "an empty value in '%s' (two commas, or one at the end)",
                shown(item, b));
  const char *slash = memchr(value.s, '/', value.n);
  struct piece name = {value.s, slash ? (size_t)(slash - value.s) : value.n};
  name = trimmed(name.s, name.n);
  unsigned kind, n = 0;
  if (name.n > 5 && memcmp(name.s, "fparg", 5) == 0 &&
      ((n = number_after(name, 5)) != 0 || is(name, "fparg0"))) {
    kind = XR_ARG_KIND_FP;
    if (n == 0 || n > port->fp_regs)
      return fail(err, cap, "'%s' in '%s': %s passes floating-point arguments 1-%u in "
                  "registers", shown(name, a), shown(item, b), port->name, port->fp_regs);
  } else if (name.n > 3 && memcmp(name.s, "arg", 3) == 0 &&
             ((n = number_after(name, 3)) != 0 || is(name, "arg0"))) {
    kind = XR_ARG_KIND_INT;
    if (n == 0 || n > port->int_regs)
      return fail(err, cap, "'%s' in '%s': %s passes integer arguments 1-%u in registers",
                  shown(name, a), shown(item, b), port->name, port->int_regs);
  } else if (is(name, "retval")) {
    kind = XR_ARG_KIND_RET;
  } else {
    return fail(err, cap, "'%s' in '%s': not a value (argN, fpargN or retval)",
                shown(name, a), shown(item, b));
  }
  uint8_t format = kind == XR_ARG_KIND_FP ? XR_ARGF_F : XR_ARGF_D;
  if (slash != NULL) {
    struct piece word = trimmed(slash + 1, value.n - (size_t)(slash + 1 - value.s));
    format = 0;
    for (unsigned f = XR_ARGF_D; f <= XR_ARGF_F32; f++)
      if (is(word, xr_arg_format_name((uint8_t)f)))
        format = (uint8_t)f;
    if (format == 0)
      return fail(err, cap, "'/%s' in '%s': not a format (/d /u /x /p /s /f /f32)",
                  shown(word, a), shown(item, b));
    if (kind == XR_ARG_KIND_INT && (format == XR_ARGF_F || format == XR_ARGF_F32))
      return fail(err, cap, "'%s' in '%s': argN is an integer register; /f and /f32 "
                  "are for fpargN and retval", shown(value, a), shown(item, b));
    if (kind == XR_ARG_KIND_FP && format == XR_ARGF_S)
      return fail(err, cap, "'%s' in '%s': fpargN is a floating-point register, not a "
                  "pointer; /s is for argN and retval", shown(value, a), shown(item, b));
  }
  v->what = XR_ARG_WHAT(kind, n);
  v->format = format;
  return 0;
}

/* One item into pattern slot *p, its glob copied to out->text at *used. */
static int parse_item(struct piece item, const struct xr_args_port *port,
                      struct xr_args_spec *out, size_t *used, char *err, size_t cap) {
  char a[256];
  for (size_t i = 0; i < item.n; i++) {
    unsigned char c = (unsigned char)item.s[i];
    if (c < 0x20 || c == 0x7f)
      return fail(err, cap, "'%s': a control byte (0x%02x) in the SPEC", shown(item, a), c);
  }
  const char *at = memchr(item.s, '@', item.n);
  if (at == NULL)
    return fail(err, cap, "'%s': no '@' between the pattern and its values "
                "(PATTERN@VALUE[,VALUE...])", shown(item, a));
  struct piece glob = trimmed(item.s, (size_t)(at - item.s));
  if (glob.n == 0)
    return fail(err, cap, "'%s': no pattern before '@'", shown(item, a));
  struct piece values = trimmed(at + 1, item.n - (size_t)(at + 1 - item.s));
  if (values.n == 0)
    return fail(err, cap, "'%s': no value after '@' (argN, fpargN or retval)", shown(item, a));
  if (out->patterns == XR_ARGS_PATTERNS_MAX)
    return fail(err, cap, "'%s': more than %d patterns", shown(item, a),
                XR_ARGS_PATTERNS_MAX);
  struct xr_args_pattern *p = &out->p[out->patterns];
  p->count = 0;
  for (const char *s = values.s, *end = values.s + values.n;;) {
    const char *comma = memchr(s, ',', (size_t)(end - s));
    struct piece value = trimmed(s, (size_t)((comma ? comma : end) - s));
    struct xr_args_value_spec v = {0, 0};
    if (parse_value(value, item, port, &v, err, cap) != 0)
      return -1;
    for (uint8_t k = 0; k < p->count; k++)
      if (p->v[k].what == v.what) {
        char b[256], name[8];
        return fail(err, cap, "'%s' in '%s': %s is named twice", shown(value, b),
                    shown(item, a), xr_arg_name(v.what, name));
      }
    p->v[p->count++] = v; /* no value twice: at most XR_ARGS_MAX + 1 */
    if (comma == NULL)
      break;
    s = comma + 1;
  }
  p->at = (uint16_t)*used;
  p->len = (uint16_t)glob.n;
  memcpy(out->text + *used, glob.s, glob.n);
  out->text[*used + glob.n] = '\0';
  *used += glob.n + 1;
  out->patterns++;
  return 0;
}

int xr_args_spec_parse(const char *text, const struct xr_args_port *port,
                       struct xr_args_spec *out, char *err, size_t cap) {
  out->patterns = 0;
  if (text == NULL)
    return 0;
  size_t len = strnlen(text, XR_ARGS_SPEC_MAX + 1);
  if (len > XR_ARGS_SPEC_MAX)
    return fail(err, cap, "the SPEC is longer than %d bytes", XR_ARGS_SPEC_MAX);
  size_t used = 0; /* each glob and its NUL take no more than its item */
  for (const char *s = text, *end = text + len;;) {
    const char *semi = memchr(s, ';', (size_t)(end - s));
    struct piece item = trimmed(s, (size_t)((semi ? semi : end) - s));
    if (item.n > 0 && parse_item(item, port, out, &used, err, cap) != 0)
      return -1;
    if (semi == NULL)
      return 0;
    s = semi + 1;
  }
}

/* Appends s (n bytes) at *at of buf, cut at cap - 1; *at counts on. */
static void put(char *buf, size_t cap, size_t *at, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++, ++*at)
    if (*at + 1 < cap)
      buf[*at] = s[i];
}

static void pattern_put(const struct xr_args_spec *s, size_t k, char *buf, size_t cap,
                        size_t *at) {
  const struct xr_args_pattern *p = &s->p[k];
  put(buf, cap, at, s->text + p->at, p->len);
  for (uint8_t i = 0; i < p->count; i++) {
    char name[8];
    const char *word = xr_arg_name(p->v[i].what, name), *f = xr_arg_format_name(p->v[i].format);
    put(buf, cap, at, i == 0 ? "@" : ",", 1);
    put(buf, cap, at, word, strlen(word));
    put(buf, cap, at, "/", 1);
    put(buf, cap, at, f, strlen(f));
  }
}

static size_t terminated(char *buf, size_t cap, size_t at) {
  if (cap > 0)
    buf[at < cap ? at : cap - 1] = '\0';
  return at;
}

size_t xr_args_pattern_print(const struct xr_args_spec *s, size_t k, char *buf, size_t cap) {
  size_t at = 0;
  if (k < s->patterns)
    pattern_put(s, k, buf, cap, &at);
  return terminated(buf, cap, at);
}

size_t xr_args_spec_print(const struct xr_args_spec *s, char *buf, size_t cap) {
  size_t at = 0;
  for (size_t k = 0; k < s->patterns; k++) {
    if (k > 0)
      put(buf, cap, &at, ";", 1);
    pattern_put(s, k, buf, cap, &at);
  }
  return terminated(buf, cap, at);
}
