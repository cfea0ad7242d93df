/* A call's captured values (core/modes/arg_values.h) as basic log records
 * (docs/formats.md, "Argument values" of the basic log): after the entry
 * or exit record they belong to, one argument payload per value, each
 * string value followed by its text, 16 bytes per payload. llvm-xray's
 * basic loader appends every payload to the record before it (FuncId, TId
 * and PId match), so it shows each value's 64 bits (and 8 bytes of each
 * text payload) as that record's arguments. Inline only (no .c): the
 * argument sink (basic_args.c, through basic_stack.h) writes them, the
 * export (basic_export.c) reads them back, and so may any reader.
 *
 * A value's payload: u16 RecordType 1, u8 what, u8 format, i32 FuncId,
 * u32 TId, u32 PId, u64 bits, u8 status, u8 len, 6 zero bytes.
 * A text payload: u16 RecordType 1, u8 XR_ARG_WHAT_TEXT, u8 n (1..16),
 * FuncId, TId, PId as above, then n bytes of text in bytes 16..31 (the
 * rest zero). compiler-rt's payload (xray_log_args) is a value payload
 * with what, format and the last 8 bytes zero: its function's first
 * argument. */
#ifndef XR_BASIC_VALUES_H
#define XR_BASIC_VALUES_H

#include "basic/basic_records.h"
#include "core/base/common.h"
#include "core/modes/arg_values.h"

#define XR_BASIC_TEXT_BYTES 16u

/* Text payloads of value v: none but for a string's len bytes. */
static inline unsigned xr_basic_text_records(const struct xr_arg_value *v) {
  unsigned len = v->format == XR_ARGF_S ? v->len : 0;
  if (len > XR_ARG_STRING_MAX)
    len = XR_ARG_STRING_MAX;
  return (len + XR_BASIC_TEXT_BYTES - 1) / XR_BASIC_TEXT_BYTES;
}

/* How many of c's values, from the first, fit in `room` payloads (whole
 * values, each with its text); their payloads in *records. */
static inline unsigned xr_basic_values_fitting(const struct xr_arg_call *c, uint32_t room,
                                               uint32_t *records) {
  unsigned k = 0, n = 0, count = c->count < XR_ARGS_MAX ? c->count : XR_ARGS_MAX;
  for (; k < count; k++) {
    unsigned need = 1 + xr_basic_text_records(&c->v[k]);
    if (n + need > room)
      break;
    n += need;
  }
  *records = n;
  return k;
}

/* Writes the payloads of c's first k values (xr_basic_values_fitting) of
 * function fid at r. */
static inline void xr_basic_put_values(struct xr_basic_record *r, int32_t fid, uint64_t ids,
                                       const struct xr_arg_call *c, unsigned k) {
  uint64_t who = (uint64_t)(uint32_t)fid << 32;
  for (unsigned i = 0; i < k; i++) {
    const struct xr_arg_value *v = &c->v[i];
    unsigned texts = xr_basic_text_records(v);
    unsigned len = texts ? (v->len < XR_ARG_STRING_MAX ? v->len : XR_ARG_STRING_MAX) : 0;
    r->w[0] = 1u | (uint64_t)v->what << 16 | (uint64_t)v->format << 24 | who;
    r->w[1] = ids;
    r->w[2] = v->bits;
    r->w[3] = (uint64_t)v->status | (uint64_t)len << 8;
    r++;
    /* The text as copied: never past the call's text buffer. */
    size_t at = v->text;
    for (unsigned done = 0; done < len; done += XR_BASIC_TEXT_BYTES, r++) {
      unsigned n = len - done < XR_BASIC_TEXT_BYTES ? len - done : XR_BASIC_TEXT_BYTES;
      r->w[0] = 1u | (uint64_t)XR_ARG_WHAT_TEXT << 16 | (uint64_t)n << 24 | who;
      r->w[1] = ids;
      unsigned char bytes[XR_BASIC_TEXT_BYTES] = {0};
      for (unsigned b = 0; b < n; b++) {
        size_t from = at + done + b;
        bytes[b] = from < sizeof c->text ? (unsigned char)c->text[from] : 0;
      }
      r->w[2] = r->w[3] = 0;
      for (unsigned b = 0; b < XR_BASIC_TEXT_BYTES; b++)
        r->w[2 + b / 8] |= (uint64_t)bytes[b] << (8 * (b % 8));
    }
  }
}

/* ---- reading them back ---------------------------------------------- */

/* What a payload record is. */
enum xr_basic_payload {
  XR_BASIC_PAYLOAD_ARG1,  /* compiler-rt's: the first argument, in bits */
  XR_BASIC_PAYLOAD_VALUE, /* a captured value (added to the call) */
  XR_BASIC_PAYLOAD_TEXT,  /* text of the call's last value (added) */
  XR_BASIC_PAYLOAD_LOST   /* one the call has no room or place for */
};

/* The values of one record as its payloads are read, one at a time. */
struct xr_basic_values_reader {
  struct xr_arg_call call;
  uint16_t text_end; /* bytes of call.text in use */
  uint8_t expected;  /* text bytes of the last value still to come */
};

static inline void xr_basic_values_reset(struct xr_basic_values_reader *rd) {
  rd->call.count = 0;
  rd->call.strings = 0;
  rd->text_end = 0;
  rd->expected = 0;
}

/* Reads payload record r (RecordType 1) into rd; *bits gets its u64. A
 * value whose text stops short (the file cut) keeps the bytes that came. */
static inline enum xr_basic_payload xr_basic_values_take(struct xr_basic_values_reader *rd,
                                                         const struct xr_basic_record *r,
                                                         uint64_t *bits) {
  unsigned what = (unsigned)(r->w[0] >> 16) & 0xff, format = (unsigned)(r->w[0] >> 24) & 0xff;
  *bits = r->w[2];
  struct xr_arg_call *c = &rd->call;
  if (what == XR_ARG_WHAT_TEXT) {
    unsigned n = format;
    if (rd->expected == 0 || n == 0 || n > XR_BASIC_TEXT_BYTES || n > rd->expected)
      return XR_BASIC_PAYLOAD_LOST;
    for (unsigned b = 0; b < n; b++)
      c->text[rd->text_end + b] = (char)(r->w[2 + b / 8] >> (8 * (b % 8)));
    rd->text_end = (uint16_t)(rd->text_end + n);
    rd->expected = (uint8_t)(rd->expected - n);
    c->v[c->count - 1].len = (uint8_t)(c->v[c->count - 1].len + n);
    return XR_BASIC_PAYLOAD_TEXT;
  }
  if (what == 0 && format == 0 && r->w[3] == 0)
    return XR_BASIC_PAYLOAD_ARG1;
  rd->expected = 0; /* a text cut short ends here */
  if (c->count >= XR_ARGS_MAX)
    return XR_BASIC_PAYLOAD_LOST;
  unsigned len = (unsigned)(r->w[3] >> 8) & 0xff;
  if (format != XR_ARGF_S || len > XR_ARG_STRING_MAX ||
      rd->text_end + len > sizeof c->text)
    len = 0; /* no text to come (or no room for it) */
  struct xr_arg_value v = {r->w[2], (uint8_t)what, (uint8_t)format,
                           (uint8_t)(r->w[3] & 0xff), 0, rd->text_end};
  c->strings += format == XR_ARGF_S;
  c->v[c->count++] = v;
  rd->expected = (uint8_t)len;
  return XR_BASIC_PAYLOAD_VALUE;
}

#endif
