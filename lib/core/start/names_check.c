/* Which xray_patch / xray_skip patterns matched nothing, said when that is
 * known: first right before main (the executable and the linked shared
 * objects) and, when objects registered after that, at exit (docs/names.md).
 *
 * A pattern is usually meant for one object, so "matches nothing" is only
 * true of the whole process: one bit per pattern, set by any object's
 * selection (names.c keeps them), read at two points. Early: the executable's first
 * constructor, by which time the loader has run every linked shared
 * object's constructors (their registrations); a shared object loaded later
 * may still match, and the line says so. At exit: the final word, said only
 * when an object registered after the early line (else it would repeat it).
 * Both points run in ordinary context (a constructor, atexit), never from a
 * handler or a signal, and cost nothing per event. */
#include "core/match/glob.h"
#include "core/base/report.h"
#include "core/base/runtime_state.h"
#include "core/names/names.h"
#include "core/objects/sled_map.h"
#include "core/options/options.h"
#include "core/patch/patch_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Patterns past the first 2048 (never reached) are never said (names.c). */
enum { MAX_PATTERNS = sizeof xr_flags.xray_patch / 2 };

static const char *option_text(int which) {
  return which == XR_OPTION_PATCH ? xr_flags.xray_patch : xr_flags.xray_skip;
}

/* Names every pattern no object matched; `tail` ends each line. */
static void say_unmatched(const char *scope, const char *tail) {
  static const char *const option_name[2] = {"xray_patch", "xray_skip"};
  for (int which = XR_OPTION_PATCH; which <= XR_OPTION_SKIP; which++) {
    const char *cursor = option_text(which);
    struct xr_pattern p;
    for (size_t k = 0; k < MAX_PATTERNS && xr_pattern_next(&cursor, &p); k++)
      if (!xr_names_pattern_matched(which, k))
        xr_report(xr_hint_level(), "XRAY_OPTIONS: %s pattern '%.*s%s' matches no "
                  "instrumented function of %s (names: llvm-xray extract "
                  "--symbolize, or docs/names.md)%s", option_name[which],
                  (int)(p.len > 200 ? 200 : p.len), p.text, p.len > 200 ? "..." : "",
                  scope, tail);
  }
}

/* "the executable", or "the executable <join> the 2 instrumented shared
 * objects<which>". */
static const char *scope_text(char *buf, size_t size, const struct xr_options_scope *s,
                              const char *join, const char *which) {
  if (s->shared_objects == 0)
    return "the executable";
  snprintf(buf, size, "the executable %s the %zu instrumented shared object%s%s", join,
           s->shared_objects, s->shared_objects == 1 ? "" : "s", which);
  return buf;
}

static pid_t check_pid; /* the process whose options these are */
static bool checked_early; /* the early line was due (maybe empty) */
static uint32_t early_registrations;

/* At exit: the patterns still unmatched, after every object this process
 * loaded, unless the early line already said exactly that. */
static void check_at_exit(void) {
  if (getpid() != check_pid || !xr_names_option_active() ||
      !xr_names_options_applied())
    return; /* a fork child, or the options were never applied */
  struct xr_options_scope s;
  xr_patch_match_options(&s);
  if (s.incomplete || (checked_early && s.registrations == early_registrations))
    return;
  char buf[160];
  say_unmatched(scope_text(buf, sizeof buf, &s, "and", " of this run"), "");
}

/* Early: after the linked objects registered (the loader runs their
 * constructors before any of the executable's; also with -z now, -z
 * initfirst and LD_PRELOAD), before main. Priority 102: after init.c's
 * fallback __xray_init (101). Only when the options were applied (by
 * patch_premain; else __xray_patch() may come later) and some function was
 * there to match: a plugin host that links no instrumented object has
 * nothing to say yet. */
__attribute__((constructor(102))) static void check_early(void) {
  if (!xr_runtime_initialized() || !xr_names_option_active())
    return;
  check_pid = getpid();
  atexit(check_at_exit);
  if (!xr_names_options_applied())
    return;
  struct xr_options_scope s;
  xr_patch_match_options(&s);
  if (s.functions == 0 || s.incomplete)
    return;
  char buf[160];
  say_unmatched(scope_text(buf, sizeof buf, &s, "or", " loaded so far"),
                "; the program runs on, and shared objects loaded later may still match");
  checked_early = true;
  early_registrations = s.registrations;
}
