/* libFuzzer target: the pattern parser and matcher (lib/core/match/glob.c),
 * the demanglers' canonical spelling (lib/core/match/spelling.c) and the
 * pattern pass over a name table (xr_names_mark in lib/core/names/names.c).
 *
 * Input: the pattern list up to the first '\n' (any bytes but NUL: the
 * runtime's pattern strings are C strings), then names, one per line.
 * Checks beyond "no crash, no sanitizer report, no timeout" (the matcher
 * is bounded by pattern x name steps):
 * - every pattern of the list lies inside it, is non-empty, holds no ';'
 *   and has no blank at either end; xr_pattern_count agrees;
 * - "*" matches every name, a name without metacharacters matches itself;
 * - where only a b c * ? occur, the answer is fnmatch(3)'s;
 * - the canonical spelling of a name or a pattern is no longer than it;
 * - a name without metacharacters selects itself through xr_names_mark, as
 *   written and in its canonical spelling;
 * - xr_names_mark selects exactly the names some pattern matches and its
 *   per-pattern hit counts add up. */
#include "core/match/glob.h"
#include "core/match/spelling.h"
#include "core/names/names.h"

#include <assert.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_NAMES = 64 };

static bool plain(const char *s, size_t n, const char *allowed) {
  for (size_t i = 0; i < n; i++)
    if (s[i] == '\0' || strchr(allowed, s[i]) == NULL)
      return false;
  return true;
}

/* The canonical spelling of text[0, len), checked: never longer. Freed by
 * the caller. (Idempotence holds for demanglers' output, which the unit
 * test checks; of arbitrary bytes a second pass may rewrite more.) */
static char *respelled(const char *text, size_t len) {
  char *out = malloc(len + 1);
  size_t n = xr_spelling_canonical(text, len, out);
  assert(n <= len && out[n] == '\0' && strlen(out) <= n);
  return out;
}

static bool usable_as_pattern(const char *s) {
  size_t n = strlen(s);
  return n > 0 && !strpbrk(s, "*?[\\;") && s[0] != ' ' && s[0] != '\t' &&
         s[n - 1] != ' ' && s[n - 1] != '\t';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  /* NUL ends the C strings: replace it so the whole input is used */
  for (size_t i = 0; i < size; i++)
    if (text[i] == '\0')
      text[i] = '\x01';
  char *list = text, *rest = strchr(text, '\n');
  if (rest != NULL)
    *rest++ = '\0';

  struct xr_name_entry entries[MAX_NAMES];
  char *canonical[MAX_NAMES];
  size_t count = 0;
  while (rest != NULL && count < MAX_NAMES) {
    char *nl = strchr(rest, '\n');
    if (nl != NULL)
      *nl++ = '\0';
    canonical[count] = respelled(rest, strlen(rest));
    entries[count] = (struct xr_name_entry){rest, rest, 0, canonical[count]};
    count++;
    rest = nl;
  }

  const char *cursor = list;
  struct xr_pattern p;
  size_t patterns = 0;
  const size_t list_len = strlen(list);
  while (xr_pattern_next(&cursor, &p)) {
    patterns++;
    assert(p.text >= list && p.text + p.len <= list + list_len && p.len > 0);
    assert(memchr(p.text, ';', p.len) == NULL);
    assert(p.text[0] != ' ' && p.text[0] != '\t');
    assert(p.text[p.len - 1] != ' ' && p.text[p.len - 1] != '\t');
    free(respelled(p.text, p.len));
    for (size_t i = 0; i < count; i++) {
      bool got = xr_glob_match(p.text, p.len, entries[i].name);
      if (plain(p.text, p.len, "abc*?") &&
          plain(entries[i].name, strlen(entries[i].name), "abc")) {
        char *z = strndup(p.text, p.len);
        assert(got == (fnmatch(z, entries[i].name, 0) == 0));
        free(z);
      }
    }
  }
  assert(patterns == xr_pattern_count(list));

  for (size_t i = 0; i < count; i++) {
    const char *name = entries[i].name;
    assert(xr_glob_match("*", 1, name));
    if (!strpbrk(name, "*?[\\"))
      assert(xr_glob_match(name, strlen(name), name));
  }

  struct xr_name_table table = {entries, count, "fuzz", 0};
  uint8_t selected[MAX_NAMES] = {0};
  size_t *hits = calloc(patterns + 1, sizeof *hits);
  size_t any = xr_names_mark(&table, list, selected, 1, hits);
  size_t marked = 0, hit_sum = 0, most = 0;
  for (size_t i = 0; i < count; i++)
    marked += selected[i];
  for (size_t k = 0; k < patterns; k++) {
    hit_sum += hits[k];
    most = hits[k] > most ? hits[k] : most;
  }
  assert(any == marked && most <= any && hit_sum >= any && any <= count);
  assert(patterns > 0 || any == 0);
  /* a name without metacharacters, blanks at its ends or ';' selects
   * itself, as written and (the canonical test) in its canonical spelling
   * when that is one a second rewriting keeps */
  for (size_t i = 0; i < count; i++) {
    if (usable_as_pattern(entries[i].name)) {
      uint8_t one[MAX_NAMES] = {0};
      xr_names_mark(&table, entries[i].name, one, 1, NULL);
      assert(one[i] == 1);
    }
    char *twice = respelled(canonical[i], strlen(canonical[i]));
    if (usable_as_pattern(canonical[i]) && strcmp(twice, canonical[i]) == 0) {
      uint8_t one[MAX_NAMES] = {0};
      xr_names_mark(&table, canonical[i], one, 1, NULL);
      assert(one[i] == 1);
    }
    free(twice);
  }
  for (size_t i = 0; i < count; i++)
    free(canonical[i]);
  free(hits);
  free(text);
  return 0;
}
