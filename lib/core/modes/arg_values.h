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

/* ---- in the files (docs/formats.md, "Argument values") ------------------ */
/* FDR: an entry with values is a function record of kind 3 (entry with
 * arguments) followed by one CallArgument metadata record per value, in
 * order: u64 bits at byte 1, `what` at byte 9, `format` at byte 10
 * (llvm-xray reads the u64 and skips the rest). String texts, and a return
 * value (a CallArgument after an exit would turn the exit into an entry for
 * llvm-xray), follow as one custom event whose data is XR_ARGS_EVENT_TAG
 * (without its NUL), a u8 count, then per value: what, format, status, len
 * (one byte each), u64 bits, then len bytes of text. */
#define XR_ARGS_EVENT_TAG "xray-args"
#define XR_ARGS_EVENT_TAG_LEN 9
#define XR_ARGS_EVENT_VALUE_HEAD 12 /* what, format, status, len, bits */
/* The custom event's bytes for values v[0..n) of call c into out (cap
 * bytes): its size, or 0 when cap is too small. */
static inline size_t xr_args_event_encode(const struct xr_arg_call *c,
                                          const struct xr_arg_value *v, size_t n,
                                          unsigned char *out, size_t cap) {
  size_t need = XR_ARGS_EVENT_TAG_LEN + 1;
  for (size_t i = 0; i < n; i++)
    need += XR_ARGS_EVENT_VALUE_HEAD + v[i].len;
  if (need > cap || n > 255)
    return 0;
  size_t at = 0;
  for (size_t i = 0; i < XR_ARGS_EVENT_TAG_LEN; i++)
    out[at++] = (unsigned char)XR_ARGS_EVENT_TAG[i];
  out[at++] = (unsigned char)n;
  for (size_t i = 0; i < n; i++) {
    out[at++] = v[i].what;
    out[at++] = v[i].format;
    out[at++] = v[i].status;
    out[at++] = v[i].len;
    for (int b = 0; b < 8; b++)
      out[at++] = (unsigned char)(v[i].bits >> (8 * b));
    for (size_t k = 0; k < v[i].len; k++)
      out[at++] = (unsigned char)c->text[v[i].text + k];
  }
  return at;
}

/* Decodes such an event (data, size bytes) into c, appending its values
 * after the c->count already there (strings' text too). False when the
 * data is not one (tag, lengths), or when c has no room: c unchanged. */
static inline bool xr_args_event_decode(const void *data, size_t size, struct xr_arg_call *c) {
  const unsigned char *p = (const unsigned char *)data;
  if (size < XR_ARGS_EVENT_TAG_LEN + 1)
    return false;
  for (size_t i = 0; i < XR_ARGS_EVENT_TAG_LEN; i++)
    if (p[i] != (unsigned char)XR_ARGS_EVENT_TAG[i])
      return false;
  size_t n = p[XR_ARGS_EVENT_TAG_LEN], at = XR_ARGS_EVENT_TAG_LEN + 1;
  size_t text_used = 0;
  for (size_t i = 0; i < c->count; i++)
    if (c->v[i].len && (size_t)c->v[i].text + c->v[i].len > text_used)
      text_used = (size_t)c->v[i].text + c->v[i].len;
  if (c->count + n > XR_ARGS_MAX)
    return false;
  struct xr_arg_call tmp = *c;
  for (size_t i = 0; i < n; i++) {
    if (size - at < XR_ARGS_EVENT_VALUE_HEAD)
      return false;
    struct xr_arg_value v = {0, p[at], p[at + 1], p[at + 2], p[at + 3], 0};
    for (int b = 0; b < 8; b++)
      v.bits |= (uint64_t)p[at + 4 + b] << (8 * b);
    at += XR_ARGS_EVENT_VALUE_HEAD;
    if (v.len > XR_ARG_STRING_MAX || size - at < v.len ||
        text_used + v.len > sizeof tmp.text)
      return false;
    v.text = (uint16_t)text_used;
    for (size_t k = 0; k < v.len; k++)
      tmp.text[text_used + k] = (char)p[at + k];
    text_used += v.len;
    at += v.len;
    tmp.strings += v.format == XR_ARGF_S;
    tmp.v[tmp.count++] = v;
  }
  if (at != size)
    return false;
  *c = tmp;
  return true;
}

#endif
