/* libFuzzer target: xrayctl's parsers of /proc (tools/xrayctl/proc_parse.c),
 * whose input a traced process's owner shapes (its name and environment,
 * its user namespace's uid_map).
 *
 * The whole input is tried as each: a status text and a uid_map (NULs
 * replaced, as read_small's C strings cannot hold one) and an environ image
 * (NULs kept). Checks beyond "no crash, no sanitizer report":
 * - a status field is 0..INT_MAX, and "the last" is found only where
 *   some n-th is;
 * - a uid mapped inside is -1 or within the 32-bit id space plus a count;
 * - an environ value fits its buffer and is the bytes after "NAME=" of a
 *   whole entry of the input. */
#include "xrayctl/proc_parse.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_status(const char *text) {
  static const char *const keys[] = {"Uid", "NSpid", "Pid", "Name"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    long long last = -1, v = -1;
    bool has_last = ctl_status_field(text, keys[k], -1, &last);
    bool any = false;
    for (int n = 0; n < 8; n++) {
      if (ctl_status_field(text, keys[k], n, &v)) {
        assert(v >= 0 && v <= INT_MAX);
        any = true;
      }
    }
    if (has_last) {
      assert(last >= 0 && last <= INT_MAX);
      assert(any);
    }
  }
}

static void check_uid_map(const char *text) {
  static const long uids[] = {0, 1, 1000, 65534, 100000, 4294967294L};
  for (size_t i = 0; i < sizeof uids / sizeof uids[0]; i++) {
    long u = ctl_uid_inside(text, uids[i]);
    assert(u >= -1 && u <= 2L * UINT32_MAX);
  }
}

static void check_environ(const char *env, size_t n) {
  static const size_t caps[] = {1, 8, 4096};
  for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
    char out[4096];
    const char *v = ctl_environ_value(env, n, "XDG_RUNTIME_DIR", out, caps[c]);
    if (v == NULL)
      continue;
    size_t len = strlen(v);
    assert(v == out && len < caps[c]);
    /* "XDG_RUNTIME_DIR=" + value + NUL is one whole entry of the input */
    bool seen = false;
    for (const char *p = env; p < env + n && !seen;) {
      const char *nul = memchr(p, '\0', (size_t)(env + n - p));
      if (nul == NULL)
        break;
      seen = (size_t)(nul - p) == 16 + len &&
             memcmp(p, "XDG_RUNTIME_DIR=", 16) == 0 &&
             memcmp(p + 16, v, len) == 0;
      p = nul + 1;
    }
    assert(seen);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  check_environ(text, size);
  for (size_t i = 0; i < size; i++)
    if (text[i] == '\0')
      text[i] = '\x01';
  check_status(text);
  check_uid_map(text);
  free(text);
  return 0;
}
