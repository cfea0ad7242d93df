/* libFuzzer target: argument capture's SPEC parser (lib/args/args_spec.c),
 * which reads the control socket's hostile bytes and the environment's.
 * Input: the bytes of a SPEC (a NUL among them ends it, as in a C string),
 * read for both ports. Checks beyond "no crash, no sanitizer report":
 * - a refusal says why, in one line of printable ASCII (it goes into a
 *   control reply), within XR_ARGS_ERROR_MAX;
 * - an accepted SPEC's values fit one call: at most XR_ARGS_MAX at an
 *   entry, XR_ARG_STRINGS_MAX of them strings, one retval, each within
 *   the port's registers, no value twice in a pattern;
 * - its normalised printing reads back to the same normalised printing. */
#include "args/args_spec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const struct xr_args_port ports[] = {{"x86-64", 6, 8}, {"AArch64", 8, 8}};
static struct xr_args_spec spec, again;
static char printed[XR_ARGS_PRINT_MAX], reprinted[XR_ARGS_PRINT_MAX];

static void check_values(const struct xr_args_port *port) {
  for (size_t k = 0; k < spec.patterns; k++) {
    const struct xr_args_pattern *p = &spec.p[k];
    unsigned entry = 0, strings = 0, rets = 0;
    assert(p->len > 0 && strlen(spec.text + p->at) == p->len);
    for (unsigned i = 0; i < p->count; i++) {
      unsigned kind = XR_ARG_WHAT_KIND(p->v[i].what), n = XR_ARG_WHAT_N(p->v[i].what);
      assert(p->v[i].format >= XR_ARGF_D && p->v[i].format <= XR_ARGF_F32);
      for (unsigned j = 0; j < i; j++)
        assert(p->v[j].what != p->v[i].what);
      if (kind == XR_ARG_KIND_RET) {
        rets++;
        continue;
      }
      assert(n >= 1 && n <= (kind == XR_ARG_KIND_INT ? port->int_regs : port->fp_regs));
      entry++;
      strings += p->v[i].format == XR_ARGF_S;
    }
    assert(entry <= XR_ARGS_MAX && strings <= XR_ARG_STRINGS_MAX && rets <= 1);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++) {
    char err[XR_ARGS_ERROR_MAX];
    memset(err, 0, sizeof err);
    if (xr_args_spec_parse(text, &ports[i], &spec, err, sizeof err) != 0) {
      size_t n = strnlen(err, sizeof err);
      assert(n > 0 && n < sizeof err);
      for (size_t j = 0; j < n; j++)
        assert(err[j] >= 0x20 && err[j] < 0x7f);
      continue;
    }
    check_values(&ports[i]);
    size_t len = xr_args_spec_print(&spec, printed, sizeof printed);
    assert(len < sizeof printed);
    char err2[XR_ARGS_ERROR_MAX];
    assert(xr_args_spec_parse(printed, &ports[i], &again, err2, sizeof err2) == 0);
    assert(again.patterns == spec.patterns);
    xr_args_spec_print(&again, reprinted, sizeof reprinted);
    assert(strcmp(printed, reprinted) == 0);
  }
  free(text);
  return 0;
}
