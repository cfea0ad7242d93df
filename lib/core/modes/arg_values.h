/* The values of one call that argument capture (lib/args) took, as the
 * modes write them and the trace writers read them back, and how they are
 * named and encoded in the files. Types, constants and inline helpers
 * only: lib/args fills a struct xr_arg_call, a mode's sink (args_sink.h)
 * writes it, a reader (lib/export, xrayctl) decodes one from the records. */
#ifndef XR_ARG_VALUES_H
#define XR_ARG_VALUES_H

#include "core/base/common.h"

/* At most this many values per call (entry: the SPEC's values of the
 * function; exit: its return value), of which at most XR_ARG_STRINGS_MAX
 * are strings, each cut at XR_ARG_STRING_MAX bytes. */
#define XR_ARGS_MAX 16
#define XR_ARG_STRINGS_MAX 8
#define XR_ARG_STRING_MAX 64

/* What a value is, one byte (`what`): kind in the high nibble, argument
 * number (1..8) in the low one; 0 is compiler-rt's xray_log_args value
 * (the first integer argument, as its records carry no byte for it). */
#define XR_ARG_KIND_INT 1u    /* argN: integer/pointer argument register N */
#define XR_ARG_KIND_FP 2u     /* fpargN: floating-point argument register N */
#define XR_ARG_KIND_RET 3u    /* retval (rax / x0; with /f, /f32: xmm0 / d0) */
#define XR_ARG_WHAT(kind, n) ((uint8_t)((kind) << 4 | (n)))
#define XR_ARG_WHAT_KIND(w) ((unsigned)(w) >> 4)
#define XR_ARG_WHAT_N(w) ((unsigned)(w)&15u)
/* Basic logs only: a record that carries the text of the string value
 * before it (lib/basic). */
#define XR_ARG_WHAT_TEXT 0xFFu

/* How a value is shown (`format`, one byte), uftrace's letters. 0 is the
 * default, signed decimal, as /d. */
enum xr_arg_format {
  XR_ARGF_D = 1,   /* signed decimal */
  XR_ARGF_U = 2,   /* unsigned decimal */
  XR_ARGF_X = 3,   /* hexadecimal "0x..." */
  XR_ARGF_P = 4,   /* pointer "0x..." */
  XR_ARGF_S = 5,   /* C string at the pointer; bits: the pointer */
  XR_ARGF_F = 6,   /* double: bits are its 64 bits */
  XR_ARGF_F32 = 7, /* float: its 32 bits in the low half of bits */
};

/* What became of a string's copy (`status`; 0 for other formats). */
enum xr_arg_string_status {
  XR_ARGS_OK = 0,        /* text[0..len) then a NUL in memory */
  XR_ARGS_NULL = 1,      /* the pointer was NULL: nothing read */
  XR_ARGS_UNREADABLE = 2, /* nothing at the pointer could be read */
  XR_ARGS_CUT = 3,       /* XR_ARG_STRING_MAX bytes read, no NUL among them */
  XR_ARGS_PARTIAL = 4,   /* len bytes read, then unreadable memory, no NUL */
};

/* One value. */
struct xr_arg_value {
  uint64_t bits;   /* the register's low 64 bits, exactly as they were */
  uint8_t what;    /* XR_ARG_WHAT(kind, n) */
  uint8_t format;  /* enum xr_arg_format */
  uint8_t status;  /* enum xr_arg_string_status (strings) */
  uint8_t len;     /* string bytes kept in the call's text, <= XR_ARG_STRING_MAX */
  uint16_t text;   /* where they start in the call's text */
};

/* The values of one call: entry (its SPEC's values, in SPEC order) or exit
 * (its return value). */
struct xr_arg_call {
  uint8_t count;
  uint8_t strings; /* how many of them are XR_ARGF_S */
  struct xr_arg_value v[XR_ARGS_MAX];
  char text[XR_ARG_STRINGS_MAX * XR_ARG_STRING_MAX];
};

/* The value's name as the SPEC writes it ("arg2", "fparg1", "retval";
 * what 0: "arg1"), in buf (at least 8 bytes) or a literal.
 * Async-signal-safe (crash-time writers use it). */
static inline const char *xr_arg_name(uint8_t what, char buf[8]) {
  unsigned kind = XR_ARG_WHAT_KIND(what), n = XR_ARG_WHAT_N(what);
  if (what == 0)
    return "arg1";
  if (kind == XR_ARG_KIND_RET)
    return "retval";
  const char *stem = kind == XR_ARG_KIND_FP ? "fparg" : "arg";
  size_t at = 0;
  while (*stem)
    buf[at++] = *stem++;
  if (n >= 10)
    buf[at++] = (char)('0' + n / 10);
  buf[at++] = (char)('0' + n % 10);
  buf[at] = '\0';
  return buf;
}

/* The format's letters as the SPEC writes them ("d" ... "f32"); NULL for
 * a byte that is none. */
static inline const char *xr_arg_format_name(uint8_t format) {
  static const char *const names[] = {"d", "d", "u", "x", "p", "s", "f", "f32"};
  return format < sizeof names / sizeof names[0] ? names[format] : NULL;
}
/* The string statuses' words in the files ("ok", "null", "unreadable",
 * "cut", "partial"); NULL for a byte that is none. */
static inline const char *xr_arg_status_name(uint8_t status) {
  static const char *const names[] = {"ok", "null", "unreadable", "cut", "partial"};
  return status < sizeof names / sizeof names[0] ? names[status] : NULL;
}

/* ---- in the files (docs/formats.md, "Argument values") ------------------ */
/* FDR: an entry with values is a function record of kind 3 (entry with
 * arguments) followed by one CallArgument metadata record per value, in
 * order: u64 bits at byte 1, `what` at byte 9, `format` at byte 10
 * (llvm-xray reads the u64 and skips the rest). String texts, and a return
 * value (a CallArgument after an exit would turn the exit into an entry for
 * llvm-xray), follow as one custom event of printable ASCII, so that
 * `llvm-xray convert` shows it whole (its YAML writer stops at a byte that
 * is not UTF-8):
 *   "xray-args" then per value " NAME/FMT=BITS" and, for a string,
 *   ":STATUS:TEXT", with NAME as xr_arg_name, FMT as xr_arg_format_name,
 *   BITS 16 lowercase hex digits, STATUS as xr_arg_status_name and TEXT the
 *   kept bytes as 2 lowercase hex digits each (nothing when none), e.g.
 *   "xray-args retval/x=00000000deadbeef",
 *   "xray-args arg2/s=00007ffd5a0c1e40:ok:68656c6c6f". */
#define XR_ARGS_EVENT_TAG "xray-args"
#define XR_ARGS_EVENT_TAG_LEN 9
/* The most bytes one value takes: " fparg8/f32=" + 16 + ":unreadable:" +
 * 2 * XR_ARG_STRING_MAX; and one whole event. */
#define XR_ARGS_EVENT_VALUE_MAX (12 + 16 + 12 + 2 * XR_ARG_STRING_MAX)
#define XR_ARGS_EVENT_MAX (XR_ARGS_EVENT_TAG_LEN + XR_ARGS_MAX * XR_ARGS_EVENT_VALUE_MAX)

static inline size_t xr_args_put_str_(unsigned char *out, size_t at, const char *s) {
  while (*s)
    out[at++] = (unsigned char)*s++;
  return at;
}
static inline size_t xr_args_put_hex_(unsigned char *out, size_t at, uint64_t v, int digits) {
  for (int d = digits - 1; d >= 0; d--)
    out[at++] = (unsigned char)"0123456789abcdef"[(v >> (4 * d)) & 15];
  return at;
}

/* The custom event's bytes for values v[0..n) of call c into out (cap
 * bytes; XR_ARGS_EVENT_MAX always suffices): its size, or 0 when cap is
 * too small or a value's bytes are not valid. Async-signal-safe. */
static inline size_t xr_args_event_encode(const struct xr_arg_call *c,
                                          const struct xr_arg_value *v, size_t n,
                                          unsigned char *out, size_t cap) {
  size_t need = XR_ARGS_EVENT_TAG_LEN;
  for (size_t i = 0; i < n; i++) {
    if (xr_arg_format_name(v[i].format) == NULL || v[i].len > XR_ARG_STRING_MAX ||
        (v[i].format == XR_ARGF_S && xr_arg_status_name(v[i].status) == NULL))
      return 0;
    need += XR_ARGS_EVENT_VALUE_MAX;
  }
  if (need > cap)
    return 0;
  size_t at = xr_args_put_str_(out, 0, XR_ARGS_EVENT_TAG);
  for (size_t i = 0; i < n; i++) {
    char name[8];
    out[at++] = ' ';
    at = xr_args_put_str_(out, at, xr_arg_name(v[i].what, name));
    out[at++] = '/';
    at = xr_args_put_str_(out, at, xr_arg_format_name(v[i].format));
    out[at++] = '=';
    at = xr_args_put_hex_(out, at, v[i].bits, 16);
    if (v[i].format != XR_ARGF_S)
      continue;
    out[at++] = ':';
    at = xr_args_put_str_(out, at, xr_arg_status_name(v[i].status));
    out[at++] = ':';
    for (size_t k = 0; k < v[i].len; k++)
      at = xr_args_put_hex_(out, at, (unsigned char)c->text[v[i].text + k], 2);
  }
  return at;
}

/* Reads `len` bytes at p as a word; true when they are exactly it. */
static inline bool xr_args_is_(const unsigned char *p, size_t len, const char *word) {
  size_t i = 0;
  for (; i < len && word[i]; i++)
    if (p[i] != (unsigned char)word[i])
      return false;
  return i == len && word[i] == '\0';
}
static inline int xr_args_hex_digit_(unsigned char ch) {
  return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Decodes such an event (data, size bytes) into c, appending its values
 * after the c->count already there (strings' text too). False when the
 * data is not one (tag, names, digits, lengths), or when c has no room:
 * c unchanged then. Async-signal-safe. */
static inline bool xr_args_event_decode(const void *data, size_t size, struct xr_arg_call *c) {
  const unsigned char *p = (const unsigned char *)data;
  if (size < XR_ARGS_EVENT_TAG_LEN || !xr_args_is_(p, XR_ARGS_EVENT_TAG_LEN, XR_ARGS_EVENT_TAG))
    return false;
  struct xr_arg_call tmp = *c;
  size_t text_used = 0;
  for (size_t i = 0; i < tmp.count; i++)
    if (tmp.v[i].len && (size_t)tmp.v[i].text + tmp.v[i].len > text_used)
      text_used = (size_t)tmp.v[i].text + tmp.v[i].len;
  size_t at = XR_ARGS_EVENT_TAG_LEN;
  while (at < size) {
    if (p[at++] != ' ' || tmp.count == XR_ARGS_MAX)
      return false;
    size_t name = at;
    while (at < size && p[at] != '/')
      at++;
    struct xr_arg_value v = {0, 0, 0, 0, 0, 0};
    size_t name_len = at - name;
    if (xr_args_is_(p + name, name_len, "retval")) {
      v.what = XR_ARG_WHAT(XR_ARG_KIND_RET, 0);
    } else {
      unsigned kind = 0;
      size_t stem = 0;
      if (name_len > 5 && xr_args_is_(p + name, 5, "fparg"))
        kind = XR_ARG_KIND_FP, stem = 5;
      else if (name_len > 3 && xr_args_is_(p + name, 3, "arg"))
        kind = XR_ARG_KIND_INT, stem = 3;
      if (kind == 0 || name_len != stem + 1 || p[name + stem] < '1' || p[name + stem] > '8')
        return false;
      v.what = XR_ARG_WHAT(kind, (unsigned)(p[name + stem] - '0'));
    }
    if (at == size)
      return false;
    size_t fmt = ++at;
    while (at < size && p[at] != '=')
      at++;
    for (unsigned f = XR_ARGF_D; f <= XR_ARGF_F32; f++)
      if (xr_args_is_(p + fmt, at - fmt, xr_arg_format_name((uint8_t)f)))
        v.format = (uint8_t)f;
    if (v.format == 0 || at == size || size - ++at < 16)
      return false;
    for (int d = 0; d < 16; d++) {
      int x = xr_args_hex_digit_(p[at++]);
      if (x < 0)
        return false;
      v.bits = v.bits << 4 | (uint64_t)x;
    }
    if (v.format == XR_ARGF_S) {
      if (at == size || p[at++] != ':')
        return false;
      size_t st = at;
      while (at < size && p[at] != ':')
        at++;
      bool known = false;
      for (unsigned s = XR_ARGS_OK; s <= XR_ARGS_PARTIAL; s++)
        if (xr_args_is_(p + st, at - st, xr_arg_status_name((uint8_t)s)))
          v.status = (uint8_t)s, known = true;
      if (!known || at++ == size || tmp.strings == XR_ARG_STRINGS_MAX)
        return false;
      v.text = (uint16_t)text_used;
      while (at < size && p[at] != ' ') {
        int hi = xr_args_hex_digit_(p[at]), lo = at + 1 < size ? xr_args_hex_digit_(p[at + 1]) : -1;
        if (hi < 0 || lo < 0 || v.len == XR_ARG_STRING_MAX || text_used == sizeof tmp.text)
          return false;
        tmp.text[text_used++] = (char)(hi << 4 | lo);
        v.len++;
        at += 2;
      }
      tmp.strings++;
    }
    tmp.v[tmp.count++] = v;
  }
  *c = tmp;
  return true;
}

#endif
