/* Captured values as text. See arg_text.h. */
#include "export/arg_text.h"
#include "core/output/text_out.h"
#include "export/float_text.h"

static size_t put_lit(char *out, size_t at, const char *s) {
  while (*s)
    out[at++] = *s++;
  return at;
}

/* "0x" and v's hex digits, at least `digits` of them. */
static size_t put_hex(char *out, size_t at, uint64_t v, unsigned digits) {
  static const char hex[] = "0123456789abcdef";
  at = put_lit(out, at, "0x");
  unsigned n = 1;
  while (n < 16 && v >> (4 * n) != 0)
    n++;
  if (n < digits)
    n = digits;
  for (unsigned i = n; i > 0; i--)
    out[at++] = hex[(v >> (4 * (i - 1))) & 15];
  return at;
}

static size_t put_u64(char *out, size_t at, uint64_t v) {
  char d[24];
  for (size_t i = xr_u64_digits(d, v, 1); i < sizeof d; i++)
    out[at++] = d[i];
  return at;
}

static size_t float_json(uint64_t bits, bool f32, char *out) {
  unsigned width = f32 ? 32 : 64, frac_bits = f32 ? 23 : 52;
  if (f32)
    bits &= 0xffffffffu;
  uint64_t exp_mask = (((uint64_t)1 << (width - 1 - frac_bits)) - 1) << frac_bits;
  uint64_t frac = bits & (((uint64_t)1 << frac_bits) - 1);
  bool negative = (bits >> (width - 1)) & 1;
  size_t at = 0;
  if ((bits & exp_mask) == exp_mask) { /* not a finite number: a string */
    out[at++] = '"';
    if (frac != 0) {
      at = put_lit(out, at, "nan:");
      at = put_hex(out, at, bits, width / 4);
    } else {
      at = put_lit(out, at, negative ? "-inf" : "inf");
    }
    out[at++] = '"';
    out[at] = '\0';
    return at;
  }
  at = xr_float_text(bits, f32, out);
  bool whole = true;
  for (size_t i = 0; i < at; i++)
    whole &= out[i] != '.' && out[i] != 'e';
  if (whole)
    at = put_lit(out, at, ".0");
  out[at] = '\0';
  return at;
}

size_t xr_arg_number_json(const struct xr_arg_value *v, char out[XR_ARG_NUMBER_MAX]) {
  size_t at = 0;
  switch (v->format) {
  case 0:
  case XR_ARGF_D:
    if ((int64_t)v->bits < 0) {
      out[at++] = '-';
      at = put_u64(out, at, -v->bits);
    } else {
      at = put_u64(out, at, v->bits);
    }
    break;
  case XR_ARGF_U:
    at = put_u64(out, at, v->bits);
    break;
  case XR_ARGF_F:
  case XR_ARGF_F32:
    return float_json(v->bits, v->format == XR_ARGF_F32, out);
  default:
    out[at++] = '"';
    at = put_hex(out, at, v->bits, 1);
    out[at++] = '"';
    break;
  }
  out[at] = '\0';
  return at;
}

const char *xr_arg_status_word(const struct xr_arg_value *v) {
  return v->format == XR_ARGF_S && v->status != XR_ARGS_OK ? xr_arg_status_name(v->status)
                                                           : NULL;
}
