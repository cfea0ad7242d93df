/* Calls' argument values in the report. See call_values.h. */
#include "call_values.h"
#include "export/arg_text.h"

#include <stdlib.h>
#include <string.h>

uint32_t ctl_values_keep(struct ctl_open_values *o, const struct xr_arg_call *c) {
  if (o->n == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 8;
    if (cap > UINT32_MAX)
      return 0; /* handles are u32 */
    struct xr_arg_call *v = realloc(o->v, cap * sizeof *v);
    if (v == NULL)
      return 0;
    o->v = v;
    o->cap = cap;
  }
  o->v[o->n++] = *c;
  return (uint32_t)o->n;
}

const struct xr_arg_call *ctl_values_end(struct ctl_open_values *o, uint32_t h) {
  if (h == 0 || h > o->n)
    return NULL;
  o->n = h - 1; /* and those kept after it, whose calls were left */
  return &o->v[h - 1];
}

void ctl_values_free(struct ctl_open_values *o) {
  free(o->v);
  *o = (struct ctl_open_values){0};
}

struct slow_call {
  uint64_t ticks;
  struct xr_arg_call args, ret; /* count 0: none */
};

struct ctl_slowest {
  unsigned n;
  struct slow_call calls[]; /* slowest first */
};

bool ctl_slowest_offer(struct ctl_slowest **s, unsigned keep, uint64_t ticks,
                       const struct xr_arg_call *args, const struct xr_arg_call *ret) {
  if (keep == 0)
    return true;
  if (*s == NULL) {
    *s = calloc(1, sizeof **s + keep * sizeof(struct slow_call));
    if (*s == NULL)
      return false;
  }
  struct ctl_slowest *l = *s;
  unsigned at = l->n;
  while (at > 0 && l->calls[at - 1].ticks < ticks)
    at--; /* after the calls as slow or slower: the first seen stays first */
  if (at == keep)
    return true;
  unsigned n = l->n < keep ? l->n + 1 : keep;
  memmove(&l->calls[at + 1], &l->calls[at], (n - 1 - at) * sizeof l->calls[0]);
  struct slow_call *c = &l->calls[at];
  c->ticks = ticks;
  c->args.count = c->ret.count = 0;
  if (args != NULL)
    c->args = *args;
  if (ret != NULL)
    c->ret = *ret;
  l->n = n;
  return true;
}

bool ctl_slowest_merge(struct ctl_slowest **into, const struct ctl_slowest *from,
                       unsigned keep) {
  for (unsigned i = 0; from != NULL && i < from->n; i++)
    if (!ctl_slowest_offer(into, keep, from->calls[i].ticks, &from->calls[i].args,
                           &from->calls[i].ret))
      return false;
  return true;
}

/* A string as C writes it: printable ASCII as it is, '"' and '\'
 * escaped, every other byte \xHH. */
static void put_string(FILE *out, const char *s, size_t n) {
  putc('"', out);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f)
      putc(c, out);
    else
      fprintf(out, "\\x%02x", c);
  }
  putc('"', out);
}

static void put_values(FILE *out, const struct xr_arg_call *c) {
  for (unsigned i = 0; i < c->count && i < XR_ARGS_MAX; i++) {
    const struct xr_arg_value *v = &c->v[i];
    char name[8];
    fprintf(out, " %s=", xr_arg_name(v->what, name));
    if (v->format != XR_ARGF_S) {
      char num[XR_ARG_NUMBER_MAX];
      size_t n = xr_arg_number_json(v, num);
      if (num[0] == '"') /* no quotes but a string's: 0x1f, nan:0x..., inf */
        fprintf(out, "%.*s", (int)n - 2, num + 1);
      else
        fputs(num, out);
      continue;
    }
    const char *status = xr_arg_status_word(v);
    if (!xr_arg_has_text(v)) {
      fprintf(out, "(%s 0x%llx)", status, (unsigned long long)v->bits);
      continue;
    }
    size_t len = v->len <= XR_ARG_STRING_MAX ? v->len : XR_ARG_STRING_MAX;
    if ((size_t)v->text + len > sizeof c->text)
      len = 0;
    put_string(out, c->text + v->text, len);
    if (status != NULL)
      fprintf(out, "(%s)", status);
  }
}

void ctl_slowest_print(FILE *out, const struct ctl_slowest *s, uint64_t hz) {
  for (unsigned i = 0; s != NULL && i < s->n; i++) {
    const struct slow_call *c = &s->calls[i];
    fprintf(out, "  %12llu ",
            (unsigned long long)((unsigned __int128)c->ticks * 1000000000u / hz));
    put_values(out, &c->args);
    put_values(out, &c->ret);
    putc('\n', out);
  }
}

void ctl_slowest_free(struct ctl_slowest *s) { free(s); }
