/* One table-driven parser for XRAY_OPTIONS and every mode's option string,
 * plus the XRAY_OPTIONS table itself and its loader.
 *
 * Syntax (compiler-rt's): `name=value` tokens separated by any run of
 * spaces, tabs, newlines, commas or colons; a value may be 'single' or
 * "double" quoted (then it may contain separators). Unlike compiler-rt, bad
 * input never ends the program: each bad token is reported at XR_ERROR and
 * the field keeps its previous value; unknown names are ignored (listed at
 * verbosity >= 1). Cold path: no malloc, strings go into fixed fields. */
#include "core/options/options.h"
#include "core/base/report.h"
#include "core/thread/quiesce.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

/* ---- environment ---------------------------------------------------- */

static char **saved_envp;

void xr_set_envp(char **envp) { saved_envp = envp; }

/* The environment the kernel gave the process, from /proc/self/environ
 * (NUL-separated): for a start-up so early that neither `environ` nor the
 * preinit envp is set, i.e. the constructor of a shared object linked with
 * -z initfirst, which runs before libc's own initialisation. Read once,
 * into memory from mmap that is kept (a few KB); NULL when unreadable. */
static const char *initial_environment(size_t *len) {
  static char *text;
  static size_t text_len;
  static bool tried;
  if (!tried) {
    tried = true;
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      size_t cap = 1 << 20; /* ARG_MAX-sized at most; pages are touched lazily */
      char *buf = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      size_t n = 0;
      if (buf != MAP_FAILED) {
        ssize_t got;
        while (n < cap - 1 && ((got = read(fd, buf + n, cap - 1 - n)) > 0 ||
                               (got < 0 && errno == EINTR)))
          if (got > 0)
            n += (size_t)got;
        buf[n] = 0;
        text = buf;
        text_len = n;
      }
      close(fd);
    }
  }
  *len = text_len;
  return text;
}

/* The live environment wins when libc has set it up (it follows setenv);
 * in .preinit_array of a dynamic program `environ` is still NULL, so the
 * envp that init saved from the preinit arguments stands in for it; before
 * either exists, the kernel's copy (initial_environment). */
const char *xr_getenv(const char *name) {
  char **env = environ ? environ : saved_envp;
  if (!name)
    return NULL;
  size_t n = strlen(name);
  if (env) {
    for (; *env; env++)
      if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
        return *env + n + 1;
    return NULL;
  }
  size_t len;
  const char *text = initial_environment(&len);
  for (size_t at = 0; text && at < len; at += strlen(text + at) + 1)
    if (strncmp(text + at, name, n) == 0 && text[at + n] == '=')
      return text + at + n + 1;
  return NULL;
}

/* ---- helpers -------------------------------------------------------- */

static bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_separator(char c) { return is_blank(c) || c == ',' || c == ':'; }

/* Printable, bounded copy of untrusted text for messages. */
static const char *shown(const char *s, size_t n, char *buf, size_t cap) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0, limit = cap - 8; /* room for "\xNN" and "..." + NUL */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (o >= limit) {
      memcpy(buf + o, "...", 4);
      return buf;
    }
    if (c >= 0x20 && c < 0x7f) {
      buf[o++] = (char)c;
    } else {
      buf[o++] = '\\';
      buf[o++] = 'x';
      buf[o++] = hex[c >> 4];
      buf[o++] = hex[c & 15];
    }
  }
  buf[o] = 0;
  return buf;
}

static bool valid_utf8_text(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    unsigned char c = *p++;
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        return false; /* control characters have no business in a flag */
      continue;
    }
    int more;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
      more = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      more = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p < more)
      return false;
    for (int i = 0; i < more; i++) {
      if ((p[i] & 0xc0) != 0x80)
        return false;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    p += more;
    if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
      return false; /* overlong form, surrogate, beyond Unicode */
  }
  return true;
}

static const char *type_name(enum xr_option_type t) {
  switch (t) {
  case XR_OPT_BOOL:
    return "bool";
  case XR_OPT_INT:
    return "int";
  case XR_OPT_UPTR:
    return "uptr";
  case XR_OPT_STRING:
  default:
    return "string";
  }
}

static void format_current(const struct xr_option *o, const void *dst,
                           char *buf, size_t cap) {
  const char *field = (const char *)dst + o->offset;
  switch (o->type) {
  case XR_OPT_BOOL:
    snprintf(buf, cap, "%s", *(const bool *)field ? "true" : "false");
    break;
  case XR_OPT_INT:
    snprintf(buf, cap, "%d", (int)*(const int32_t *)field);
    break;
  case XR_OPT_UPTR:
    snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)field);
    break;
  case XR_OPT_STRING:
    shown(field, strnlen(field, o->size), buf, cap);
    break;
  }
}

/* Decimal digits (after an optional sign) into *out; false on anything else
 * or on overflow beyond 2^64-1. */
static bool parse_magnitude(const char *s, size_t n, unsigned base,
                            uint64_t *out) {
  if (n == 0)
    return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    if (v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

enum value_error { V_OK, V_EMPTY, V_SYNTAX, V_RANGE, V_TOO_LONG, V_TEXT };

static enum value_error parse_value(const struct xr_option *o, void *dst,
                                    const char *v, size_t n) {
  char *field = (char *)dst + o->offset;
  if (n == 0 && o->type != XR_OPT_STRING)
    return V_EMPTY;
  switch (o->type) {
  case XR_OPT_BOOL: {
    static const struct {
      const char *text;
      bool value;
    } words[] = {{"1", true},     {"true", true}, {"yes", true},
                 {"0", false},    {"false", false}, {"no", false}};
    for (size_t i = 0; i < XR_ARRAY_SIZE(words); i++)
      if (strlen(words[i].text) == n && memcmp(words[i].text, v, n) == 0) {
        *(bool *)field = words[i].value;
        return V_OK;
      }
    return V_SYNTAX;
  }
  case XR_OPT_INT: {
    bool negative = false;
    if (*v == '-' || *v == '+') {
      negative = *v == '-';
      v++;
      n--;
    }
    uint64_t m;
    if (!parse_magnitude(v, n, 10, &m))
      return n > 0 && strspn(v, "0123456789") >= n ? V_RANGE : V_SYNTAX;
    if (m > (uint64_t)INT64_MAX)
      return V_RANGE;
    int64_t x = negative ? -(int64_t)m : (int64_t)m;
    if (x < o->min || x > o->max)
      return V_RANGE;
    *(int32_t *)field = (int32_t)x;
    return V_OK;
  }
  case XR_OPT_UPTR: {
    unsigned base = 10;
    if (*v == '-')
      return V_RANGE; /* negative for an unsigned value */
    if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
      base = 16;
      v += 2;
      n -= 2;
    }
    uint64_t m;
    if (!parse_magnitude(v, n, base, &m))
      return strspn(v, base == 16 ? "0123456789abcdefABCDEF" : "0123456789") >=
                     n
                 ? V_RANGE
                 : V_SYNTAX;
    if (m < (uint64_t)(o->min < 0 ? 0 : o->min) || m > (uint64_t)o->max)
      return V_RANGE;
    *(uint64_t *)field = m;
    return V_OK;
  }
  case XR_OPT_STRING:
    if (n >= o->size)
      return V_TOO_LONG;
    if (!valid_utf8_text(v, n))
      return V_TEXT;
    memcpy(field, v, n);
    field[n] = 0;
    return V_OK;
  }
  return V_SYNTAX;
}

static void report_bad_value(const char *origin, const struct xr_option *o,
                             const void *dst, const char *v, size_t n,
                             enum value_error e) {
  char value[64], current[64], why[96];
  switch (e) {
  case V_EMPTY:
    snprintf(why, sizeof why, "empty value");
    break;
  case V_RANGE:
    if (o->type == XR_OPT_INT || o->type == XR_OPT_UPTR)
      snprintf(why, sizeof why, "out of range [%lld, %lld]",
               (long long)(o->type == XR_OPT_UPTR && o->min < 0 ? 0 : o->min),
               (long long)o->max);
    else
      snprintf(why, sizeof why, "out of range");
    break;
  case V_TOO_LONG:
    snprintf(why, sizeof why, "too long (%zu bytes, at most %zu)", n,
             o->size - 1);
    break;
  case V_TEXT:
    snprintf(why, sizeof why, "control characters or invalid UTF-8");
    break;
  case V_SYNTAX:
  case V_OK:
  default:
    snprintf(why, sizeof why, "%s",
             o->type == XR_OPT_BOOL  ? "expected 0/1/true/false/yes/no"
             : o->type == XR_OPT_INT ? "expected a decimal integer"
                                     : "expected a decimal or 0x number");
    break;
  }
  format_current(o, dst, current, sizeof current);
  xr_report(XR_ERROR, "%s: bad value '%s' for %s option '%s': %s; keeping '%s'",
            origin, shown(v, n, value, sizeof value), type_name(o->type),
            o->name, why, current);
}

static const struct xr_option *find(const struct xr_option_table *t,
                                    const char *name, size_t n) {
  for (size_t i = 0; i < t->count; i++)
    if (strlen(t->options[i].name) == n &&
        memcmp(t->options[i].name, name, n) == 0)
      return &t->options[i];
  return NULL;
}

/* ---- parsing -------------------------------------------------------- */

enum { UNKNOWN_SHOWN = 4 };
struct parse_notes {
  unsigned unknown_count;
  char unknown[UNKNOWN_SHOWN][48];
  bool help;
};

static int parse(const struct xr_option_table *t, void *dst, const char *text,
                 const char *origin, struct parse_notes *notes) {
  int bad = 0;
  char shown_buf[64];
  const char *p = text;
  if (!p)
    return 0;
  for (;;) {
    while (is_separator(*p))
      p++;
    if (!*p)
      break;
    const char *name = p;
    while (*p && *p != '=' && !is_separator(*p))
      p++;
    size_t name_len = (size_t)(p - name);
    if (*p != '=') {
      xr_report(XR_ERROR, "%s: expected '=' after '%s'; ignored", origin,
                shown(name, name_len, shown_buf, sizeof shown_buf));
      bad++;
      continue;
    }
    p++;
    const char *value = p;
    size_t value_len;
    if (*p == '\'' || *p == '"') {
      char quote = *p++;
      value = p;
      while (*p && *p != quote)
        p++;
      if (!*p) {
        xr_report(XR_ERROR, "%s: unterminated %s quote in the value of '%s'; "
                  "the rest of the options is ignored",
                  origin, quote == '"' ? "double" : "single",
                  shown(name, name_len, shown_buf, sizeof shown_buf));
        bad++;
        break;
      }
      value_len = (size_t)(p - value);
      p++;
      if (*p && !is_separator(*p)) {
        const char *junk = p;
        while (*p && !is_separator(*p))
          p++;
        xr_report(XR_ERROR, "%s: unexpected '%s' after the quoted value of "
                  "'%.*s'; ignored", origin,
                  shown(junk, (size_t)(p - junk), shown_buf, sizeof shown_buf),
                  (int)(name_len > 40 ? 40 : name_len), name);
        bad++;
        continue;
      }
    } else {
      const struct xr_option *o = find(t, name, name_len);
      bool to_blank = o != NULL && o->type == XR_OPT_STRING && o->min == XR_OPT_TO_BLANK;
      while (*p && !(to_blank ? is_blank(*p) : is_separator(*p)))
        p++;
      value_len = (size_t)(p - value);
    }
    if (name_len == 0) {
      xr_report(XR_ERROR, "%s: missing flag name before '=%s'; ignored",
                origin, shown(value, value_len, shown_buf, sizeof shown_buf));
      bad++;
      continue;
    }
    const struct xr_option *o = find(t, name, name_len);
    if (!o) {
      if (name_len == 4 && memcmp(name, "help", 4) == 0) {
        static const struct xr_option help_row = {
            "help", XR_OPT_BOOL, offsetof(struct parse_notes, help), 0,
            "false", 0, 0, "print the flags", NULL};
        enum value_error e = parse_value(&help_row, notes, value, value_len);
        if (e != V_OK) {
          report_bad_value(origin, &help_row, notes, value, value_len, e);
          bad++;
        }
        continue;
      }
      if (notes->unknown_count < UNKNOWN_SHOWN)
        shown(name, name_len, notes->unknown[notes->unknown_count],
              sizeof notes->unknown[0]);
      notes->unknown_count++;
      continue;
    }
    enum value_error e = parse_value(o, dst, value, value_len);
    if (e != V_OK) {
      report_bad_value(origin, o, dst, value, value_len, e);
      bad++;
    }
  }
  return bad;
}

static void print_help(const struct xr_option_table *t, const void *dst) {
  char current[64], words[XR_OPTION_WORDS_MAX];
  xr_report(XR_ERROR, "%s flags (name=value, separated by space , or :):",
            t->env_name);
  for (size_t i = 0; i < t->count; i++) {
    const struct xr_option *o = &t->options[i];
    format_current(o, dst, current, sizeof current);
    xr_option_help_words(o, words, sizeof words);
    xr_report(XR_ERROR, "  %s (%s, default '%s', current '%s'): %s%s", o->name,
              type_name(o->type), o->default_value, current, o->help, words);
  }
}

static void finish(const struct xr_option_table *t, const void *dst,
                   const struct parse_notes *notes, const char *origin) {
  if (notes->unknown_count) {
    char list[UNKNOWN_SHOWN * 50 + 8] = "";
    size_t o = 0;
    for (unsigned i = 0; i < notes->unknown_count && i < UNKNOWN_SHOWN; i++)
      o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", i ? ", " : "",
                            notes->unknown[i]);
    if (notes->unknown_count > UNKNOWN_SHOWN)
      snprintf(list + o, sizeof list - o, ", ...");
    xr_report(XR_INFO, "%s: ignoring %u unknown flag(s): %s", origin,
              notes->unknown_count, list);
  }
  if (notes->help)
    print_help(t, dst);
}

int xr_options_parse(const struct xr_option_table *table, void *dst,
                     const char *text, const char *origin) {
  struct parse_notes notes = {0};
  int bad = parse(table, dst, text, origin, &notes);
  finish(table, dst, &notes, origin);
  return bad;
}

int xr_options_parse_config(const struct xr_option_table *table, void *dst,
                            const void *args, size_t args_size,
                            const char *origin) {
  if (args == NULL)
    return 0;
  const char *text = args;
  size_t limit = args_size ? args_size : SIZE_MAX, n = 0;
  while (n < limit && n < XR_CONFIG_MAX && text[n] != '\0')
    n++;
  if (n == XR_CONFIG_MAX) {
    xr_report(XR_ERROR, "%s: longer than %d bytes", origin, XR_CONFIG_MAX - 1);
    return 1;
  }
  char copy[XR_CONFIG_MAX];
  memcpy(copy, text, n);
  copy[n] = '\0';
  return xr_options_parse(table, dst, copy, origin);
}

void xr_options_set_defaults(const struct xr_option_table *table, void *dst) {
  for (size_t i = 0; i < table->count; i++) {
    const struct xr_option *o = &table->options[i];
    const char *d = o->default_value ? o->default_value : "";
    if (o->type == XR_OPT_STRING)
      memset((char *)dst + o->offset, 0, o->size);
    enum value_error e = parse_value(o, dst, d, strlen(d));
    if (e != V_OK) /* a wrong table row: say so, leave the field zeroed */
      report_bad_value("built-in default", o, dst, d, strlen(d), e);
  }
}

/* ---- XRAY_OPTIONS ----------------------------------------------------- */

struct xr_flags xr_flags;

#define ROW(field, type, size, def, min, max, help)                          \
  {#field, type, offsetof(struct xr_flags, field), size, def, min, max, help, \
   NULL}
#define BOOL_ROW(field, def, help) ROW(field, XR_OPT_BOOL, 0, def, 0, 1, help)
#define INT_ROW(field, def, min, max, help)                                  \
  ROW(field, XR_OPT_INT, 0, def, min, max, help)

static const struct xr_option flag_rows[] = {
    BOOL_ROW(patch_premain, "false",
             "patch every sled before main() runs"),
    ROW(xray_mode, XR_OPT_STRING, sizeof xr_flags.xray_mode, "", 0, 0,
        "mode to select at start: xray-basic, xray-fdr, xray-profiling or a "
        "registered mode"),
    ROW(xray_logfile_base, XR_OPT_STRING, sizeof xr_flags.xray_logfile_base,
        "xray-log.", 0, 0,
        "prefix of log file names (may include a directory)"),
    ROW(xray_page_size_override, XR_OPT_UPTR, 0, "0", 0, (int64_t)1 << 30,
        "page size used for patching (power of two; 0 = the system's)"),
    BOOL_ROW(xray_naive_log, "false",
             "legacy spelling of xray_mode=xray-basic"),
    INT_ROW(xray_naive_log_func_duration_threshold_us, "5", XR_BASIC_THRESHOLD_MIN,
            XR_BASIC_THRESHOLD_MAX,
            "legacy: basic mode drops calls shorter than this (us), when "
            "XRAY_BASIC_OPTIONS is unset"),
    INT_ROW(xray_naive_log_max_stack_depth, "64", XR_BASIC_DEPTH_MIN, XR_BASIC_DEPTH_MAX,
            "legacy: basic mode shadow stack depth, when XRAY_BASIC_OPTIONS "
            "is unset"),
    INT_ROW(xray_naive_log_thread_buffer_size, "1024", XR_BASIC_BUFFER_MIN,
            XR_BASIC_BUFFER_MAX,
            "legacy: basic mode records per thread buffer, when "
            "XRAY_BASIC_OPTIONS is unset"),
    BOOL_ROW(xray_fdr_log, "false", "legacy spelling of xray_mode=xray-fdr"),
    INT_ROW(xray_fdr_log_func_duration_threshold_us, "5", 0, INT32_MAX,
            "legacy: FDR mode drops calls shorter than this (us), when "
            "XRAY_FDR_OPTIONS is unset"),
    INT_ROW(xray_fdr_log_grace_period_us, "0", 0, INT32_MAX,
            "legacy: unused (kept so old settings parse)"),
    INT_ROW(xray_fdr_log_grace_period_ms, XR_QUIESCE_BOUND_DEFAULT_TEXT, 0, INT32_MAX,
            "legacy: FDR's grace_period_ms, when XRAY_FDR_OPTIONS is unset"
            XR_QUIESCE_BOUND_RANGE_TEXT),
    INT_ROW(verbosity, "0", 0, 100,
            "0: quiet (errors only); 1: information; 2: debugging"),
    ROW(xray_patch, XR_OPT_STRING, sizeof xr_flags.xray_patch, "", 0, 0,
        "patch only the functions whose names match one of these globs, "
        "separated by ';' (patch_premain and __xray_patch()); quote the "
        "value when a pattern holds ':' ',' or a space"),
    ROW(xray_skip, XR_OPT_STRING, sizeof xr_flags.xray_skip, "", 0, 0,
        "never patch the functions whose names match one of these globs "
        "(';'-separated) in patch_premain and __xray_patch()"),
    BOOL_ROW(xray_control, "false",
             "listen on a private socket for xrayctl (docs/control.md); "
             "nothing is patched or started until it asks"),
    ROW(xray_control_dir, XR_OPT_STRING, sizeof xr_flags.xray_control_dir, "", 0, 0,
        "absolute directory of the control socket, private to the user (default: "
        "$XDG_RUNTIME_DIR/xray, else /tmp/xray-<uid>)"),
    ROW(xray_budget, XR_OPT_STRING, sizeof xr_flags.xray_budget, "", 0, 0,
        "keep the runtime's own cost at or under this percent of the program's CPU "
        "time (e.g. 2 or 0.5; 0: off) by unpatching the functions that cost most "
        "for what they show (docs/modes.md, \"Keeping the cost bounded\"); a bad "
        "value leaves it off"),
    ROW(xray_budget_keep, XR_OPT_STRING, sizeof xr_flags.xray_budget_keep, "", 0, 0,
        "functions the budget never unpatches, by name (';'-separated globs, as in "
        "xray_patch)"),
    ROW(xray_args, XR_OPT_STRING, sizeof xr_flags.xray_args, "", XR_OPT_TO_BLANK, 0,
     "capture these functions' arguments and return values: "
     "PATTERN@VALUE[,VALUE...][;PATTERN@VALUE...], VALUE argN, fpargN or retval with "
     "an optional /d /u /x /p /s /f /f32 (docs/arguments.md); unquoted, the value "
     "runs to the next blank; a bad SPEC is said and none is in effect"),
};

const struct xr_option_table xr_flags_table = {"XRAY_OPTIONS", flag_rows,
                                               XR_ARRAY_SIZE(flag_rows)};

/* The program may supply defaults (compiler-rt >= 20 honours this too). */
const char *__xray_default_options(void) __attribute__((weak));

void xr_flags_load(void) {
  struct parse_notes from_program = {0}, from_env = {0};
  xr_options_set_defaults(&xr_flags_table, &xr_flags);
  /* Errors are printed at every verbosity, so parse first and list unknown
   * names afterwards, once the final verbosity is known. */
  if (__xray_default_options)
    parse(&xr_flags_table, &xr_flags, __xray_default_options(),
          "__xray_default_options()", &from_program);
  parse(&xr_flags_table, &xr_flags, xr_getenv("XRAY_OPTIONS"), "XRAY_OPTIONS",
        &from_env);
  __atomic_store_n(&xr_verbosity, xr_flags.verbosity, __ATOMIC_RELAXED);
  from_program.help |= from_env.help;
  from_env.help = false;
  finish(&xr_flags_table, &xr_flags, &from_program, "__xray_default_options()");
  finish(&xr_flags_table, &xr_flags, &from_env, "XRAY_OPTIONS");
}

void xr_option_help_words(const struct xr_option *o, char *buf, size_t cap) {
  if (cap == 0)
    return;
  buf[0] = '\0';
  if (o->words != NULL && cap > 2) {
    memcpy(buf, ": ", 3);
    o->words(buf + 2, cap - 2);
  }
}
