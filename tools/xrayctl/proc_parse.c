/* Parsers of what /proc says of a process (proc_parse.h). */
#include "proc_parse.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A decimal number of 0..max and the position after it; false when p does
 * not start with one. */
static bool parse_num(const char **p, long long max, long long *out) {
  const char *s = *p;
  long long v = 0;
  if (*s < '0' || *s > '9')
    return false;
  for (; *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (*s - '0');
    if (v > max)
      return false;
  }
  *out = v;
  *p = s;
  return true;
}

bool ctl_status_field(const char *status, const char *key, int n, long long *out) {
  size_t k = strlen(key);
  for (const char *line = status; *line;) {
    const char *end = strchr(line, '\n');
    if (end == NULL)
      end = line + strlen(line);
    if ((size_t)(end - line) > k && strncmp(line, key, k) == 0 && line[k] == ':') {
      const char *p = line + k + 1;
      bool found = false;
      for (int i = 0; p < end; i++) {
        while (*p == '\t' || *p == ' ')
          p++;
        if (p >= end)
          break;
        long long v;
        if (!parse_num(&p, INT_MAX, &v) || (*p != '\t' && *p != ' ' && p != end))
          return false;
        if (i == n || n < 0) {
          *out = v;
          found = true;
        }
      }
      return found;
    }
    line = *end ? end + 1 : end;
  }
  return false;
}

long ctl_uid_inside(const char *map, long uid) {
  for (const char *p = map; *p;) {
    long long in, out, count;
    while (*p == ' ')
      p++;
    if (!parse_num(&p, UINT32_MAX, &in))
      return -1;
    while (*p == ' ')
      p++;
    if (!parse_num(&p, UINT32_MAX, &out))
      return -1;
    while (*p == ' ')
      p++;
    if (!parse_num(&p, UINT32_MAX, &count) || *p != '\n')
      return -1;
    p++;
    if (uid >= out && uid - out < count)
      return (long)(in + (uid - out));
  }
  return -1;
}

const char *ctl_environ_value(const char *env, size_t n, const char *name,
                              char *out, size_t cap) {
  size_t k = strlen(name);
  /* Only whole entries (NUL-terminated inside the n bytes): one cut at the
   * end of a huge environment is not. */
  for (const char *p = env; p < env + n;) {
    const char *nul = memchr(p, '\0', (size_t)(env + n - p));
    if (nul == NULL)
      break;
    if ((size_t)(nul - p) > k && strncmp(p, name, k) == 0 && p[k] == '=') {
      if ((size_t)(nul - (p + k + 1)) >= cap)
        return NULL; /* cut: another directory than the process's */
      memcpy(out, p + k + 1, (size_t)(nul - (p + k + 1)) + 1);
      return out;
    }
    p = nul + 1;
  }
  return NULL;
}
