/* Floating-point numbers as decimal text. See float_text.h.
 *
 * A finite number is m * 2^e, m and e integers. For e >= 0 its value is
 * the integer m << e; for e < 0 it is m * 5^-e / 10^-e, so the decimal
 * digits of the integer m * 5^-e are the number's, the point -e places
 * from the right. Either integer (at most 2,550 bits: the smallest
 * double's 5^1074) is expanded into all its decimal digits, which are then
 * rounded to the precision, ties to even, as glibc's printf rounds the
 * exact value. */
#include "export/float_text.h"

#define BIG_WORDS 84  /* u32 words: 2,688 bits */
#define DIGITS_MAX 800 /* decimal digits of the largest expansion, 771 */

struct big {
  uint32_t w[BIG_WORDS]; /* little-endian */
  unsigned n;            /* words in use; w[n-1] != 0 unless n == 0 */
};

static void big_mul_small(struct big *b, uint32_t k) {
  uint64_t carry = 0;
  for (unsigned i = 0; i < b->n; i++) {
    uint64_t v = (uint64_t)b->w[i] * k + carry;
    b->w[i] = (uint32_t)v;
    carry = v >> 32;
  }
  if (carry != 0 && b->n < BIG_WORDS)
    b->w[b->n++] = (uint32_t)carry;
}

/* b /= k; returns the remainder. */
static uint32_t big_div_small(struct big *b, uint32_t k) {
  uint64_t rem = 0;
  for (unsigned i = b->n; i > 0; i--) {
    uint64_t v = rem << 32 | b->w[i - 1];
    b->w[i - 1] = (uint32_t)(v / k);
    rem = v % k;
  }
  while (b->n > 0 && b->w[b->n - 1] == 0)
    b->n--;
  return (uint32_t)rem;
}

static void big_set(struct big *b, uint64_t v) {
  b->n = 0;
  for (; v != 0; v >>= 32)
    b->w[b->n++] = (uint32_t)v;
}

static void big_shift_left(struct big *b, unsigned s) {
  unsigned words = s / 32, bits = s % 32;
  if (b->n == 0)
    return;
  unsigned n = b->n + words + 1;
  if (n > BIG_WORDS)
    n = BIG_WORDS; /* not reached: doubles need at most 33 words here */
  for (unsigned i = n; i-- > 0;) {
    uint64_t hi = i >= words && i - words < b->n ? b->w[i - words] : 0;
    uint64_t lo = i >= words + 1 && i - words - 1 < b->n ? b->w[i - words - 1] : 0;
    b->w[i] = bits ? (uint32_t)(hi << bits | lo >> (32 - bits)) : (uint32_t)hi;
  }
  b->n = n;
  while (b->n > 0 && b->w[b->n - 1] == 0)
    b->n--;
}

/* The decimal digits of b (destroyed) into d, most significant first;
 * returns how many. */
static unsigned big_digits(struct big *b, char d[DIGITS_MAX]) {
  char rev[DIGITS_MAX + 9];
  unsigned n = 0;
  while (b->n > 0 && n + 9 <= DIGITS_MAX) {
    uint32_t chunk = big_div_small(b, 1000000000u);
    for (int k = 0; k < 9; k++, chunk /= 10)
      rev[n++] = (char)('0' + chunk % 10);
  }
  if (n == 0)
    rev[n++] = '0';
  while (n > 1 && rev[n - 1] == '0')
    n--; /* the last chunk's leading zeros */
  for (unsigned i = 0; i < n; i++)
    d[i] = rev[n - 1 - i];
  return n;
}

static size_t put_str(char *out, size_t at, const char *s) {
  while (*s)
    out[at++] = *s++;
  return at;
}

size_t xr_float_text(uint64_t bits, bool f32, char out[XR_FLOAT_TEXT_MAX]) {
  unsigned frac_bits = f32 ? 23 : 52, exp_bits = f32 ? 8 : 11;
  int bias = f32 ? 127 : 1023;
  unsigned precision = f32 ? 9 : 17;
  if (f32)
    bits &= 0xffffffffu;
  bool negative = (bits >> (frac_bits + exp_bits)) & 1;
  uint64_t frac = bits & (((uint64_t)1 << frac_bits) - 1);
  unsigned exp = (unsigned)(bits >> frac_bits) & ((1u << exp_bits) - 1);
  size_t at = 0;
  if (negative)
    out[at++] = '-';
  if (exp == (1u << exp_bits) - 1) {
    at = put_str(out, at, frac ? "nan" : "inf");
    out[at] = '\0';
    return at;
  }
  if (exp == 0 && frac == 0) {
    out[at++] = '0';
    out[at] = '\0';
    return at;
  }
  uint64_t m = exp ? frac | (uint64_t)1 << frac_bits : frac;
  int e = (exp ? (int)exp : 1) - bias - (int)frac_bits; /* value = m * 2^e */

  struct big b;
  big_set(&b, m);
  if (e >= 0) {
    big_shift_left(&b, (unsigned)e);
  } else {
    unsigned k = (unsigned)-e;
    for (; k >= 13; k -= 13)
      big_mul_small(&b, 1220703125u); /* 5^13 */
    uint32_t p = 1;
    while (k-- > 0)
      p *= 5;
    big_mul_small(&b, p);
  }
  char d[DIGITS_MAX];
  unsigned n = big_digits(&b, d);
  int x = (int)n - 1 + (e < 0 ? e : 0); /* decimal exponent of d[0] */

  /* Round to `precision` digits, ties to even. */
  if (n > precision) {
    bool up = d[precision] > '5';
    if (d[precision] == '5') {
      bool beyond = false;
      for (unsigned i = precision + 1; i < n && !beyond; i++)
        beyond = d[i] != '0';
      up = beyond || ((d[precision - 1] - '0') & 1);
    }
    n = precision;
    if (up) {
      unsigned i = n;
      while (i > 0 && d[i - 1] == '9')
        d[--i] = '0';
      if (i == 0) {
        d[0] = '1'; /* 99.9 -> 100: one more digit before the point */
        x++;
      } else {
        d[i - 1]++;
      }
    }
  }
  while (n > 1 && d[n - 1] == '0')
    n--; /* %g drops trailing zeros */

  if (x < -4 || x >= (int)precision) { /* d.ddde+XX */
    out[at++] = d[0];
    if (n > 1) {
      out[at++] = '.';
      for (unsigned i = 1; i < n; i++)
        out[at++] = d[i];
    }
    out[at++] = 'e';
    out[at++] = x < 0 ? '-' : '+';
    unsigned ax = (unsigned)(x < 0 ? -x : x);
    if (ax >= 100)
      out[at++] = (char)('0' + ax / 100);
    out[at++] = (char)('0' + ax / 10 % 10);
    out[at++] = (char)('0' + ax % 10);
  } else if (x < 0) { /* 0.000ddd */
    out[at++] = '0';
    out[at++] = '.';
    for (int i = -1; i > x; i--)
      out[at++] = '0';
    for (unsigned i = 0; i < n; i++)
      out[at++] = d[i];
  } else { /* ddd.ddd */
    for (int i = 0; i <= x; i++) {
      if ((unsigned)i < n)
        out[at++] = d[i];
      else
        out[at++] = '0';
    }
    if ((int)n > x + 1) {
      out[at++] = '.';
      for (unsigned i = (unsigned)x + 1; i < n; i++)
        out[at++] = d[i];
    }
  }
  out[at] = '\0';
  return at;
}
