/* libFuzzer target: the one options parser (lib/core/options/options.c) with the real
 * XRAY_OPTIONS table, fed arbitrary bytes.
 *
 * Input: byte 0, bit 1 set: parse the text twice (as the environment and then
 * a config string would be); the rest is the option text (NUL-terminated
 * copy).
 * Checks beyond "no crash, no sanitizer report": every string field stays
 * NUL-terminated within its capacity, every number stays inside its table
 * range, a bool stays 0 or 1, and the bad-value count is never negative. */
#include "core/options/options.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_fields(const struct xr_option_table *t, const unsigned char *dst) {
  for (size_t i = 0; i < t->count; i++) {
    const struct xr_option *o = &t->options[i];
    const unsigned char *field = dst + o->offset;
    switch (o->type) {
    case XR_OPT_BOOL:
      assert(*field == 0 || *field == 1);
      break;
    case XR_OPT_INT: {
      int32_t v;
      memcpy(&v, field, sizeof v);
      assert(v >= o->min && v <= o->max);
      break;
    }
    case XR_OPT_UPTR: {
      uint64_t v;
      memcpy(&v, field, sizeof v);
      /* min/max are int64_t; a max of -1 or INT64_MAX means "any". */
      if (o->max > 0)
        assert(v <= (uint64_t)o->max);
      if (o->min > 0)
        assert(v >= (uint64_t)o->min);
      break;
    }
    case XR_OPT_STRING:
      assert(o->size > 0);
      assert(memchr(field, 0, o->size) != NULL);
      break;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const unsigned mode = data[0];
  char *text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';

  const struct xr_option_table *t = &xr_flags_table;
  struct xr_flags flags;
  memset(&flags, 0xA5, sizeof flags); /* defaults must overwrite every field */
  xr_options_set_defaults(t, &flags);
  check_fields(t, (const unsigned char *)&flags);

  int bad = xr_options_parse(t, &flags, text, "fuzz");
  assert(bad >= 0);
  check_fields(t, (const unsigned char *)&flags);
  if (mode & 2) {
    bad = xr_options_parse(t, &flags, text, "fuzz");
    assert(bad >= 0);
    check_fields(t, (const unsigned char *)&flags);
  }
  /* Empty and NULL texts are no-ops. */
  struct xr_flags before;
  memcpy(&before, &flags, sizeof flags);
  assert(xr_options_parse(t, &flags, NULL, "fuzz") == 0);
  assert(xr_options_parse(t, &flags, "", "fuzz") == 0);
  assert(memcmp(&before, &flags, sizeof flags) == 0);
  free(text);
  return 0;
}
