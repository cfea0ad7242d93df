/* One table-driven parser for XRAY_OPTIONS and every mode's option string.
 *
 * Syntax (as compiler-rt's): `name=value` pairs separated by spaces, tabs,
 * newlines, commas or colons; values may be 'single' or "double" quoted.
 * bool: 0/1/true/false/yes/no; int and uptr: decimal (uptr also accepts 0x hex).
 * Unknown names: ignored, warned at verbosity >= 1. A bad value (garbage,
 * overflow, out of [min,max], missing '=', over-long string): reported with
 * xr_report(XR_ERROR, ...) and the previous value kept. Never exits. */
#ifndef XR_OPTIONS_H
#define XR_OPTIONS_H

#include "core/base/common.h"

#include <limits.h>

enum xr_option_type { XR_OPT_BOOL, XR_OPT_INT, XR_OPT_UPTR, XR_OPT_STRING };

struct xr_option {
  const char *name;
  enum xr_option_type type;
  size_t offset;             /* of the field in the destination struct */
  size_t size;               /* XR_OPT_STRING: capacity incl. NUL */
  const char *default_value; /* text form, parsed like user input */
  int64_t min, max;          /* XR_OPT_INT / XR_OPT_UPTR: accepted range;
                                XR_OPT_STRING: min XR_OPT_TO_BLANK or 0 */
  const char *help;          /* one line, used by docs/options.md */
  /* NULL, or writes the words the value is made of, from their table
   * (core/options/option_words.h): every reader of help prints them after it. */
  void (*words)(char *buf, size_t cap);
};
/* A string row's min: its unquoted value runs to the next blank (space,
 * tab, newline), so ',' and ':' are its own (a list whose syntax holds
 * them: xray_args). */
#define XR_OPT_TO_BLANK 1

/* Field types: bool -> bool, int -> int32_t (XR_OPT_INT), uptr -> uint64_t,
 * string -> char[size]. */
struct xr_option_table {
  const char *env_name; /* e.g. "XRAY_FDR_OPTIONS" (docs and messages) */
  const struct xr_option *options;
  size_t count;
};

/* Resets every field of dst to its table default. */
XR_HIDDEN void xr_options_set_defaults(const struct xr_option_table *table,
                                       void *dst);

/* Parses text (may be NULL or empty: no-op) into dst. `origin` names the
 * source in messages ("XRAY_OPTIONS", "xray-fdr config"). Returns the number
 * of bad values/tokens (0 = all good); unknown names are not counted. */
XR_HIDDEN int xr_options_parse(const struct xr_option_table *table, void *dst,
                               const char *text, const char *origin);

/* A mode's log_init config string (args: NUL-terminated, or args_size
 * bytes from __xray_log_init_mode_bin) parsed into dst, as
 * xr_options_parse. One longer than XR_CONFIG_MAX - 1 bytes is not parsed
 * at all and counts as one bad value (every mode then refuses to start). */
enum { XR_CONFIG_MAX = 4096 };
XR_HIDDEN int xr_options_parse_config(const struct xr_option_table *table,
                                      void *dst, const void *args,
                                      size_t args_size, const char *origin);

/* Environment lookup that works in .preinit_array (where `environ` is still
 * NULL in dynamically linked programs): uses the envp saved by init, else
 * environ. Returns NULL when unset. */
XR_HIDDEN const char *xr_getenv(const char *name);
XR_HIDDEN void xr_set_envp(char **envp);

/* The process-wide XRAY_OPTIONS flags. */
struct xr_flags {
  bool patch_premain;
  char xray_mode[64];
  char xray_logfile_base[PATH_MAX];
  uint64_t xray_page_size_override;
  bool xray_naive_log;
  int32_t xray_naive_log_func_duration_threshold_us;
  int32_t xray_naive_log_max_stack_depth;
  int32_t xray_naive_log_thread_buffer_size;
  bool xray_fdr_log;
  int32_t xray_fdr_log_func_duration_threshold_us;
  int32_t xray_fdr_log_grace_period_us;
  int32_t xray_fdr_log_grace_period_ms;
  int32_t verbosity;
  char xray_patch[4096]; /* ';'-separated globs: patch only these (names.c) */
  char xray_skip[4096];  /* ';'-separated globs: never patch these */
  bool xray_control;          /* lib/control: listen for xrayctl */
  char xray_control_dir[108]; /* its private directory ("" = defaults) */
  char xray_budget[32];       /* lib/budget: percent of the program's CPU ("" = off) */
  char xray_budget_keep[4096]; /* ';'-separated globs the budget never culls */
  char xray_args[4096];        /* lib/args: the SPEC of argument capture */
};
XR_HIDDEN extern struct xr_flags xr_flags;
XR_HIDDEN extern const struct xr_option_table xr_flags_table;

/* Fills xr_flags: defaults, then the program's weak __xray_default_options(),
 * then the XRAY_OPTIONS environment variable (which wins). Sets xr_verbosity. */
XR_HIDDEN void xr_flags_load(void);

/* Ranges of basic mode's options, shared by its table (lib/basic) and the
 * legacy xray_naive_log_* rows of XRAY_OPTIONS: one range per option. */
#define XR_BASIC_THRESHOLD_MIN 0
#define XR_BASIC_THRESHOLD_MAX INT32_MAX
#define XR_BASIC_DEPTH_MIN 0
#define XR_BASIC_DEPTH_MAX (1 << 20)
#define XR_BASIC_BUFFER_MIN 2
#define XR_BASIC_BUFFER_MAX (1 << 22)

/* What a row's help ends with: ": " and its words when it has a words
 * function, else "" (the help flag and docs/options.md). */
enum { XR_OPTION_WORDS_MAX = 256 };
XR_HIDDEN void xr_option_help_words(const struct xr_option *o, char *buf,
                                    size_t cap);

#endif
