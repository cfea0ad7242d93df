/* Lists of words from a table as option values. See option_words.h. */
#include "core/options/option_words.h"

#include <stdio.h>
#include <string.h>

unsigned xr_options_word_set(const char *s, const char *const *words,
                             size_t count) {
  unsigned bits = 0;
  while (*s != '\0') {
    size_t n = strcspn(s, ",+|; ");
    size_t i = 0;
    while (i < count && !(strlen(words[i]) == n && strncmp(s, words[i], n) == 0))
      i++;
    if (i < count)
      bits |= 1u << i;
    else if (n != 0)
      return 0;
    s += n;
    if (*s != '\0')
      s++;
  }
  return bits;
}

void xr_options_word_list(char *buf, size_t cap, const char *const *words,
                          const char *const *notes, size_t count) {
  size_t len = 0;
  if (cap == 0)
    return;
  buf[0] = '\0';
  for (size_t i = 0; i < count && len < cap; i++) {
    const char *note = notes != NULL ? notes[i] : NULL;
    int n = snprintf(buf + len, cap - len, "%s%s%s%s%s",
                     i == 0 ? "" : i + 1 == count ? " and " : ", ", words[i],
                     note != NULL ? " (" : "", note != NULL ? note : "",
                     note != NULL ? ")" : "");
    if (n < 0)
      return;
    len += (size_t)n;
  }
}
