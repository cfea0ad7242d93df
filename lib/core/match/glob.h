/* Shell-glob matching of function names, and lists of patterns.
 *
 * Pattern syntax (a subset of fnmatch(3) without flags, written here so the
 * runtime needs nothing beyond libc's string functions):
 *   *      any run of bytes, empty included (also across "::")
 *   ?      exactly one byte
 *   [set]  one byte of the set: single bytes and ranges a-z; a leading ! or ^
 *          negates it; a ] right after [ (or [! / [^) is an ordinary member
 *   \c     the byte c itself (so \* \? \[ \\ match those characters)
 *   other  that byte
 * Defined behaviour for bad input: a [ with no closing ] is an ordinary '[';
 * a trailing \ is an ordinary '\'; a reversed range (z-a) matches nothing;
 * any byte value (also 0x80-0xff) is just a byte. Matching is case-sensitive
 * and takes O(pattern x name) steps at worst (no exponential backtracking).
 *
 * A pattern list separates patterns by ';' (template arguments and
 * parameter lists contain ',' and ' ', so neither can separate). Blanks
 * (space, tab) around each pattern are dropped; empty patterns are skipped. */
#ifndef XR_GLOB_H
#define XR_GLOB_H

#include "core/base/common.h"

/* True when the whole of name matches pattern[0, pattern_len). Pattern may
 * contain any byte (no NUL needed at its end); name is a C string. */
XR_HIDDEN bool xr_glob_match(const char *pattern, size_t pattern_len,
                             const char *name);

/* True when pattern[0, pattern_len) has no wildcard (no '*', no '?' and no
 * '[' that opens a set; escaped bytes are ordinary): it matches one name
 * exactly, so a user who writes it chose that function by name. */
XR_HIDDEN bool xr_glob_is_exact(const char *pattern, size_t pattern_len);

/* One pattern of a list: start and length within the list text. */
struct xr_pattern {
  const char *text;
  size_t len;
};

/* Steps through a ';'-separated list. *cursor starts at the list (a C
 * string) and is advanced; returns false when no non-empty pattern is left. */
XR_HIDDEN bool xr_pattern_next(const char **cursor, struct xr_pattern *out);

/* Number of non-empty patterns in list (NULL: 0). */
XR_HIDDEN size_t xr_pattern_count(const char *list);

#endif
