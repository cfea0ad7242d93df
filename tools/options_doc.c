/* Prints the option tables compiled into libxray.a as the Markdown tables of
 * docs/options.md, so the documentation is produced from (and checked
 * against) the code that parses the options, never retyped.
 *
 *   xray_options_doc            the generated part of docs/options.md
 *
 * Linked with the archive: the tables are hidden symbols, resolved at static
 * link time. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/options/option_words.h"
#include "core/options/options.h"

/* The mode tables, defined by the modes (lib/basic, lib/fdr, lib/profiling).
 * Strong references: a renamed or missing table fails the link, so the
 * documentation cannot silently lose a mode. */
XR_HIDDEN extern const struct xr_option_table xr_basic_options_table;
XR_HIDDEN extern const struct xr_option_table xr_fdr_options_table;
XR_HIDDEN extern const struct xr_option_table xr_profiling_options_table;

struct documented_table {
  const struct xr_option_table *table;
  const char *what; /* one sentence about where the string goes */
};

static const char *type_name(const struct xr_option *o, char *buf, size_t cap) {
  switch (o->type) {
  case XR_OPT_BOOL: return "bool";
  case XR_OPT_INT: return "int";
  case XR_OPT_UPTR: return "uptr";
  default:
    snprintf(buf, cap, "string (up to %zu bytes)", o->size ? o->size - 1 : 0);
    return buf;
  }
}

/* INT32_MAX and INT64_MAX read better by name than as 10- and 19-digit
 * numbers. */
static const char *bound(int64_t v, char *buf, size_t cap) {
  if (v == INT32_MAX)
    return "INT32_MAX";
  if (v == INT64_MAX)
    return "INT64_MAX";
  if (v > 0 && (v & (v - 1)) == 0 && v >= 1024) {
    int shift = 0;
    while (((int64_t)1 << shift) != v)
      shift++;
    snprintf(buf, cap, "2^%d", shift);
    return buf;
  }
  snprintf(buf, cap, "%" PRId64, v);
  return buf;
}

/* Markdown table cell: a '|' in help text would end the cell. */
static void print_cell(const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      fputc('\\', stdout);
    fputc(*s, stdout);
  }
}

static void print_table(const struct documented_table *d) {
  const struct xr_option_table *t = d->table;
  printf("### `%s`\n\n%s\n\n", t->env_name, d->what);
  printf("| option | type | default | accepted | meaning |\n");
  printf("|---|---|---|---|---|\n");
  for (size_t i = 0; i < t->count; i++) {
    const struct xr_option *o = &t->options[i];
    char tbuf[48], lo[32], hi[32], range[80];
    const char *def = o->default_value ? o->default_value : "";
    switch (o->type) {
    case XR_OPT_BOOL:
      snprintf(range, sizeof(range), "true/false, 1/0, yes/no");
      break;
    case XR_OPT_STRING:
      snprintf(range, sizeof(range), "text");
      break;
    default:
      snprintf(range, sizeof(range), "%s .. %s", bound(o->min, lo, sizeof(lo)),
               bound(o->max, hi, sizeof(hi)));
    }
    printf("| `%s` | %s | %s%s%s | %s | ", o->name,
           type_name(o, tbuf, sizeof(tbuf)), def[0] ? "`" : "",
           def[0] ? def : "(empty)", def[0] ? "`" : "", range);
    char words[XR_OPTION_WORDS_MAX];
    xr_option_help_words(o, words, sizeof words);
    print_cell(o->help ? o->help : "");
    print_cell(words);
    printf(" |\n");
  }
  printf("\n");
}

int main(void) {
  const struct documented_table tables[] = {
      {&xr_flags_table,
       "Read once at start-up, before `main()`. Process-wide: patching, the "
       "mode to start, where logs go, how much the runtime says."},
      {&xr_basic_options_table,
       "Basic mode, read when it is initialised; then the configuration "
       "string given to `__xray_log_init_mode(\"xray-basic\", ...)`."},
      {&xr_fdr_options_table,
       "FDR mode, read when it is initialised; then the configuration "
       "string given to `__xray_log_init_mode(\"xray-fdr\", ...)`."},
      {&xr_profiling_options_table,
       "Profiling mode, read when it is initialised; then the configuration "
       "string given to `__xray_log_init_mode(\"xray-profiling\", ...)`."},
  };
  for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
    print_table(&tables[i]);
  return 0;
}
