/* Glob matching (see glob.h for the syntax). Cold path: used when patterns
 * are resolved against the name table, never per event. */
#include "core/match/glob.h"

#include <string.h>

/* Length of the class starting at p[0] == '[' (up to and including its ']'),
 * or 0 when it has no closing ']' (then '[' is an ordinary byte). */
static size_t class_length(const char *p, size_t n) {
  size_t i = 1;
  if (i < n && (p[i] == '!' || p[i] == '^'))
    i++;
  if (i < n && p[i] == ']')
    i++; /* a leading ] is a member, not the end */
  for (; i < n; i++)
    if (p[i] == ']')
      return i + 1;
  return 0;
}

/* Whether byte c is in the class p[0, len) (as measured by class_length). */
static bool class_has(const char *p, size_t len, unsigned char c) {
  size_t i = 1, end = len - 1; /* members are p[i, end) */
  bool negate = false;
  if (p[i] == '!' || p[i] == '^') {
    negate = true;
    i++;
  }
  bool in = false;
  for (; i < end; i++) {
    unsigned char lo = (unsigned char)p[i];
    if (i + 2 < end && p[i + 1] == '-') { /* a range; a '-' last is a member */
      unsigned char hi = (unsigned char)p[i + 2];
      in = in || (c >= lo && c <= hi);
      i += 2;
    } else {
      in = in || c == lo;
    }
  }
  return in != negate;
}

/* Matches one pattern element at p[0] (of n bytes left) against byte c.
 * *step receives the element's length in the pattern. Never called on '*'. */
static bool element_matches(const char *p, size_t n, unsigned char c,
                            size_t *step) {
  if (p[0] == '?') {
    *step = 1;
    return true;
  }
  if (p[0] == '[') {
    size_t len = class_length(p, n);
    if (len != 0) {
      *step = len;
      return class_has(p, len, c);
    }
  } else if (p[0] == '\\' && n > 1) {
    *step = 2;
    return (unsigned char)p[1] == c;
  }
  *step = 1;
  return (unsigned char)p[0] == c;
}

/* The classic single-backtrack matcher: on a mismatch after a '*', retry
 * with that '*' eating one more byte. Only the last '*' needs remembering
 * (an earlier one can never help a later part match), so the cost is
 * bounded by pattern length x name length. */
bool xr_glob_match(const char *pattern, size_t pattern_len, const char *name) {
  size_t p = 0, star = SIZE_MAX, star_name = 0;
  const unsigned char *s = (const unsigned char *)name;
  size_t i = 0;
  for (;;) {
    if (p < pattern_len && pattern[p] == '*') {
      while (p < pattern_len && pattern[p] == '*')
        p++;
      if (p == pattern_len)
        return true; /* a trailing '*' takes the rest */
      star = p;
      star_name = i;
      continue;
    }
    if (s[i] == '\0' && p == pattern_len)
      return true;
    size_t step;
    if (s[i] != '\0' && p < pattern_len &&
        element_matches(pattern + p, pattern_len - p, s[i], &step)) {
      p += step;
      i++;
      continue;
    }
    if (star == SIZE_MAX || s[star_name] == '\0')
      return false;
    star_name++; /* the last '*' eats one more byte */
    i = star_name;
    p = star;
  }
}

bool xr_glob_is_exact(const char *pattern, size_t pattern_len) {
  for (size_t p = 0; p < pattern_len; p++) {
    if (pattern[p] == '*' || pattern[p] == '?' ||
        (pattern[p] == '[' && class_length(pattern + p, pattern_len - p) != 0))
      return false;
    if (pattern[p] == '\\')
      p++; /* the next byte is itself; a trailing backslash is itself too */
  }
  return true;
}

static bool blank(char c) { return c == ' ' || c == '\t'; }

bool xr_pattern_next(const char **cursor, struct xr_pattern *out) {
  const char *c = *cursor;
  if (c == NULL)
    return false;
  while (*c != '\0') {
    const char *end = strchr(c, ';');
    if (end == NULL)
      end = c + strlen(c);
    const char *a = c, *b = end;
    while (a < b && blank(*a))
      a++;
    while (b > a && blank(b[-1]))
      b--;
    c = *end == ';' ? end + 1 : end;
    if (a < b) {
      *cursor = c;
      out->text = a;
      out->len = (size_t)(b - a);
      return true;
    }
  }
  *cursor = c;
  return false;
}

size_t xr_pattern_count(const char *list) {
  struct xr_pattern p;
  size_t n = 0;
  while (xr_pattern_next(&list, &p))
    n++;
  return n;
}
