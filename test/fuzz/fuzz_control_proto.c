/* libFuzzer target: the control socket's request parser
 * (lib/control/control_proto.c), the one thing another process hands the
 * runtime. Input: the bytes of one request, as read from the socket.
 * Checks beyond "no crash, no sanitizer report":
 * - a refusal always says why;
 * - an accepted request came whole: at most 4096 bytes, one newline, at
 *   the end, printable ASCII, the xray/1 prefix, a known verb;
 * - its arguments are non-empty, inside the buffer, without newline, and
 *   its numbers are the decimal text of the arguments, and a percent
 *   (budget) is its argument's one spelling;
 * - writing the parsed request back gives the same bytes (nothing was
 *   dropped or invented). */
#include "control/control_proto.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verbs' spelling on the wire (docs/control.md), this test's own copy:
 * an accepted request must name the verb the parser returned. */
static const char *const wire[XR_CTL_VERB_COUNT] = {
    [XR_CTL_HELLO] = "hello",       [XR_CTL_STATUS] = "status",
    [XR_CTL_PATCH] = "patch",       [XR_CTL_UNPATCH] = "unpatch",
    [XR_CTL_START] = "start",       [XR_CTL_STOP] = "stop",
    [XR_CTL_FLUSH] = "flush",       [XR_CTL_SNAPSHOT] = "snapshot",
    [XR_CTL_RECORD] = "record",     [XR_CTL_TOP] = "top",
    [XR_CTL_BUDGET] = "budget",     [XR_CTL_ARGS] = "args",
};

/* thousandths of a percent written as the protocol spells a percent. */
static void percent_text(uint32_t thousandths, char *out, size_t cap) {
  uint32_t frac = thousandths % 1000;
  int n = snprintf(out, cap, "%u", thousandths / 1000);
  if (frac != 0) {
    n += snprintf(out + n, cap - (size_t)n, ".%03u", frac);
    while (out[n - 1] == '0')
      out[--n] = '\0';
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size ? size : 1);
  memcpy(buf, data, size);
  struct xr_ctl_request rq;
  const char *why = NULL;
  int rc = xr_ctl_parse(buf, size, &rq, &why);
  if (rc != 0) {
    assert(why != NULL && *why != '\0');
    free(buf);
    return 0;
  }
  assert(size <= XR_CTL_MAX_REQUEST && size > 0 && data[size - 1] == '\n');
  assert(memchr(data, '\n', size) == (const void *)(data + size - 1));
  assert((unsigned)rq.verb < XR_CTL_VERB_COUNT && wire[rq.verb] != NULL);
  const char *verb = wire[rq.verb];
  assert(rq.argc >= 0 && rq.argc <= XR_CTL_MAX_ARGS);
  char *again = malloc(size + 1);
  int n = snprintf(again, size + 1, "%s %s", XR_CTL_MAGIC, verb);
  for (int i = 0; i < rq.argc; i++) {
    const char *a = rq.argv[i];
    assert(a >= buf && a < buf + size && *a != '\0' && strchr(a, '\n') == NULL);
    if (rq.number[i] != 0) {
      char text[16];
      snprintf(text, sizeof text, "%u", rq.number[i]);
      assert(strcmp(text, a) == 0);
    }
    n += snprintf(again + n, size + 1 - (size_t)n, " %s", a);
  }
  if (rq.verb == XR_CTL_BUDGET) {
    char text[16];
    assert(rq.argc == 1 && rq.thousandths <= 100000);
    percent_text(rq.thousandths, text, sizeof text);
    assert(strcmp(text, rq.argv[0]) == 0);
  } else {
    assert(rq.thousandths == 0);
  }
  n += snprintf(again + n, size + 1 - (size_t)n, "\n");
  assert((size_t)n == size && memcmp(again, data, size) == 0);
  free(again);
  free(buf);
  return 0;
}
