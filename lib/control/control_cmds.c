#define _GNU_SOURCE /* accept4, struct ucred, POLLRDHUP */
/* The control commands (docs/control.md), each through the public API the
 * program itself would call: the names API for patterns, the mode registry
 * for start/stop, the FDR snapshot API; every patching call reaches
 * core/patch/patch_api.c, the same door as the program's own. Runs on the control
 * thread only, one command at a time, so its own state needs no lock.
 *
 * "Patched by control" in status counts what control patched and has not
 * unpatched (a byte per function of each object); "functions patched" is
 * core's count of functions patched now, whoever patched them. */
#include "control/control_cmds.h"
#include "args/args_set.h"
#include "args/args_spec.h"
#include "budget/budget_options.h"
#include "control/control_proto.h"
#include "control/control_reply.h"
#include "control/control_top.h"
#include "core/modes/log_registry.h"
#include "core/modes/mode_stats.h"
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/output/output.h"
#include "core/output/written_files.h"
#include "core/patch/patch_api.h"
#include "xray/xray_args.h"
#include "xray/xray_budget.h"
#include "xray/xray_fdr.h"
#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"
#include "xray/xray_names.h"
#include "xray/xray_version.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *state_word(XRayLogInitStatus s) {
  static const char *const words[] = {"uninitialized", "initializing",
                                      "initialized", "finalizing", "finalized"};
  return (unsigned)s < XR_ARRAY_SIZE(words) ? words[s] : "unknown";
}

static const char *names_error(int status) {
  switch (status) {
  case XRAY_NAMES_NOT_INITIALIZED:
    return "the program has no XRay instrumentation map";
  case XRAY_NAMES_BUSY:
    return "another thread of the program is patching; try again";
  case XRAY_NAMES_INVALID:
    return "no pattern given";
  case XRAY_NAMES_FAILED:
    return "page protection could not be changed (the program says which "
           "pages on stderr)";
  case XRAY_NAMES_NO_MEMORY:
    return "no memory for the name table";
  default:
    return "unknown failure";
  }
}

/* ---- what control patched ------------------------------------------------ */

struct patched_set {
  uint8_t *sel;  /* sel[function id - 1] */
  size_t count;
};
static struct patched_set patched[XR_MAX_OBJECTS];

static struct patched_set *set_of(int32_t object, size_t count) {
  struct patched_set *s = &patched[object];
  if (s->count != count) { /* first use, or another object took the id */
    free(s->sel);
    s->sel = calloc(count ? count : 1, 1);
    s->count = s->sel ? count : 0;
  }
  return s->sel ? s : NULL;
}

/* Sets sel to value for every loaded function the patterns match. */
static void mark(const char *patterns, uint8_t value) {
  size_t objects = xr_objects_count();
  for (size_t o = 0; o < objects; o++) {
    struct xr_object_info info;
    const struct xr_name_table *t;
    if (!xr_object_info((int32_t)o, &info) || !info.loaded ||
        xr_names_table((int)o, &t) != XRAY_NAMES_OK || t->count == 0)
      continue;
    struct patched_set *s = set_of((int32_t)o, t->count);
    if (s)
      xr_names_mark(t, patterns, s->sel, value, NULL);
  }
}

static void count_functions(size_t *loaded_objects, size_t *total,
                            size_t *by_control, size_t *patched_now) {
  *loaded_objects = *total = *by_control = *patched_now = 0;
  size_t objects = xr_objects_count();
  for (size_t o = 0; o < objects; o++) {
    struct xr_object_info info;
    if (!xr_object_info((int32_t)o, &info) || !info.loaded)
      continue;
    ++*loaded_objects;
    *total += info.function_count;
    *patched_now += xr_patch_count_patched((int32_t)o);
    const struct patched_set *s = &patched[o];
    if (s->count == info.function_count)
      for (size_t i = 0; i < s->count; i++)
        *by_control += s->sel[i];
  }
}

/* __xray_(un)patch_matching, retried while another thread patches. */
static int patch_by_name(const char *patterns, bool enable) {
  for (int tries = 0;; tries++) {
    int n = enable ? __xray_patch_matching(patterns)
                   : __xray_unpatch_matching(patterns);
    if (n != XRAY_NAMES_BUSY || tries == 200)
      return n;
    struct timespec t = {0, 5 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
}

static void cmd_patch(const char *patterns, bool enable, struct xr_ctl_reply *r) {
  int n = patch_by_name(patterns, enable);
  if (n < 0) {
    xr_ctl_fail(r, "%s '%s': %s", enable ? "patch" : "unpatch", patterns,
                names_error(n));
    return;
  }
  mark(patterns, enable ? 1 : 0);
  xr_ctl_say(r, "%d\n", n);
}

/* ---- files ---------------------------------------------------------------- */

/* Notes of the written-files ring from here on belong to the session
 * control started last (stop lists them). */
static uint64_t session_first_file;

/* Lists the files noted since `first` that still exist (basic mode removes
 * a log that kept no record). */
static void say_files_since(uint64_t first, struct xr_ctl_reply *r) {
  uint64_t end = xr_written_count();
  if (end - first > XR_WRITTEN_RING)
    first = end - XR_WRITTEN_RING;
  for (uint64_t i = first; i < end; i++) {
    char path[XR_WRITTEN_PATH_MAX];
    if (xr_written_get(i, path, sizeof path) && access(path, F_OK) == 0)
      xr_ctl_say(r, "%s\n", path);
  }
}

static void say_absolute(const char *path, struct xr_ctl_reply *r) {
  char cwd[XR_WRITTEN_PATH_MAX];
  if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
    xr_ctl_say(r, "%s/%s\n", strcmp(cwd, "/") == 0 ? "" : cwd, path);
  else
    xr_ctl_say(r, "%s\n", path);
}

/* ---- modes ---------------------------------------------------------------- */

static bool running(XRayLogInitStatus s) {
  return s == XRAY_LOG_INITIALIZING || s == XRAY_LOG_INITIALIZED ||
         s == XRAY_LOG_FINALIZING;
}

/* Starts mode `given` with `options`; false (r says why) when it cannot. */
static bool start_mode(const char *given, const char *options,
                       struct xr_ctl_reply *r) {
  const char *mode = xr_ctl_mode_name(given);
  if (mode == NULL) {
    xr_ctl_fail(r, "unknown mode '%s' (xray-basic, xray-fdr, xray-profiling, "
                "or basic, fdr, profiling)", given);
    return false;
  }
  XRayLogInitStatus s;
  const char *current = xr_registry_current(&s);
  if (current != NULL && running(s)) {
    xr_ctl_fail(r, "mode %s is %s: stop it first", current, state_word(s));
    return false;
  }
  session_first_file = xr_written_count();
  s = __xray_log_init_mode(mode, options);
  if (s != XRAY_LOG_INITIALIZED) {
    xr_ctl_fail(r, "%s did not start (it says %s; its messages are on the "
                "program's stderr)", mode, state_word(s));
    return false;
  }
  return true;
}

static void cmd_start(const char *given, const char *options,
                      struct xr_ctl_reply *r) {
  if (start_mode(given, options ? options : "", r))
    xr_ctl_say(r, "%s initialized\n", xr_ctl_mode_name(given));
}

/* Finalizes and flushes the current mode; false (r says why) on failure. */
static bool stop_mode(struct xr_ctl_reply *r) {
  XRayLogInitStatus s;
  const char *mode = xr_registry_current(&s);
  if (mode == NULL || (s != XRAY_LOG_INITIALIZED && s != XRAY_LOG_FINALIZED)) {
    xr_ctl_fail(r, "no mode is running (mode %s, %s)", mode ? mode : "none",
                state_word(s));
    return false;
  }
  s = __xray_log_finalize();
  if (s != XRAY_LOG_FINALIZED) {
    xr_ctl_fail(r, "%s did not finalize (it says %s)", mode, state_word(s));
    return false;
  }
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED) {
    xr_ctl_fail(r, "%s did not flush (another flush in progress?)", mode);
    return false;
  }
  return true;
}

static void cmd_stop(struct xr_ctl_reply *r) {
  if (stop_mode(r))
    say_files_since(session_first_file, r);
}

static void cmd_snapshot(struct xr_ctl_reply *r) {
  char path[XR_WRITTEN_PATH_MAX];
  path[0] = '\0';
  switch (__xray_fdr_snapshot(path, sizeof path)) {
  case XRAY_SNAPSHOT_OK:
    say_absolute(path, r);
    return;
  case XRAY_SNAPSHOT_NOT_RECORDING:
    xr_ctl_fail(r, "xray-fdr is not recording: nothing to snapshot");
    return;
  case XRAY_SNAPSHOT_BUSY:
    xr_ctl_fail(r, "another snapshot is being written; try again");
    return;
  default:
    xr_ctl_fail(r, "the snapshot file could not be written whole ('%s'; the "
                "program's stderr says why)", path);
    return;
  }
}

static void cmd_flush(struct xr_ctl_reply *r) {
  XRayLogInitStatus s;
  const char *mode = xr_registry_current(&s);
  if (mode != NULL && strcmp(mode, "xray-fdr") == 0 && s == XRAY_LOG_INITIALIZED) {
    cmd_snapshot(r); /* FDR writes its buffers while it records on */
    return;
  }
  xr_ctl_fail(r, "mode %s (%s) cannot write its data without stopping: use "
              "stop", mode ? mode : "none", state_word(s));
}

/* A timed session, for record and top: start the mode, patch, wait, stop,
 * unpatch what it patched, select the mode that was selected before. Runs
 * here, not in the client, so the program is restored even when the client
 * dies during the wait. `between` runs after finalize, before flush. */
static void session(const char *given, const char *options, const char *patterns,
                    uint32_t ms, const struct xr_ctl_client *client,
                    void (*between)(uint32_t, struct xr_ctl_reply *),
                    uint32_t arg, struct xr_ctl_reply *r) {
  XRayLogInitStatus s;
  const char *before = xr_registry_current(&s);
  /* What control had patched before: only the rest is unpatched after. */
  size_t objects = xr_objects_count();
  static uint8_t *was[XR_MAX_OBJECTS];
  static size_t was_count[XR_MAX_OBJECTS];
  bool any_before = false;
  for (size_t o = 0; o < objects; o++) {
    was[o] = NULL;
    was_count[o] = patched[o].count;
    if (patched[o].sel && (was[o] = malloc(patched[o].count ? patched[o].count : 1)))
      memcpy(was[o], patched[o].sel, patched[o].count);
    for (size_t i = 0; i < patched[o].count; i++)
      /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): set_of keeps count 0 while sel is NULL */
      any_before |= patched[o].sel[i] != 0;
  }
  if (!start_mode(given, options, r))
    goto out;
  int n = patch_by_name(patterns, true);
  if (n < 0) {
    static struct xr_ctl_reply ignored;
    stop_mode(&ignored);
    xr_ctl_fail(r, "patch '%s': %s", patterns, names_error(n));
    goto restore;
  }
  mark(patterns, 1);
  client->wait(client->fd, ms);
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED) {
    xr_ctl_fail(r, "the mode did not finalize");
  } else {
    if (between)
      between(arg, r);
    if (__xray_log_flushLog() != XRAY_LOG_FLUSHED && r->status == XR_CTL_OK)
      xr_ctl_fail(r, "the mode did not flush");
    else if (!between)
      say_files_since(session_first_file, r);
  }
restore:
  if (!any_before) { /* the common case: one pass, a protection change per page run */
    patch_by_name(patterns, false);
    mark(patterns, 0);
  }
  for (size_t o = 0; o < xr_objects_count(); o++) {
    struct patched_set *p = &patched[o];
    bool same = o < objects && was[o] && was_count[o] == p->count;
    for (size_t i = 0; p->sel && i < p->count; i++)
      if (p->sel[i] && !(same && was[o][i])) {
        __xray_unpatch_function_in_object((int32_t)i + 1, (int32_t)o);
        p->sel[i] = 0;
      }
  }
  if (before != NULL)
    __xray_log_select_mode(before);
  else
    __xray_remove_log_impl();
out:
  for (size_t o = 0; o < objects; o++)
    free(was[o]);
}

/* Basic and FDR keep every call (threshold 0); `output` "chrome" adds the
 * Chrome trace JSON beside the log, "perfetto" the Perfetto trace. */
static void cmd_record(uint32_t seconds, const char *given, const char *output,
                       const char *patterns, const struct xr_ctl_client *client,
                       struct xr_ctl_reply *r) {
  static const struct {
    const char *word, *options;
  } outputs[] = {
      {"xray", "func_duration_threshold_us=0"},
      {"chrome", "func_duration_threshold_us=0 trace_output=xray+chrome"},
      {"perfetto", "func_duration_threshold_us=0 trace_output=xray+perfetto"},
  };
  const char *mode = xr_ctl_mode_name(given);
  size_t o = 0;
  while (o < XR_ARRAY_SIZE(outputs) && strcmp(output, outputs[o].word) != 0)
    o++;
  if (o == XR_ARRAY_SIZE(outputs)) {
    xr_ctl_fail(r, "unknown output '%s' (xray, chrome or perfetto)", output);
    return;
  }
  bool profiling = mode && strcmp(mode, "xray-profiling") == 0;
  if (o != 0 && profiling) {
    xr_ctl_fail(r, "xray-profiling writes no %s trace", output);
    return;
  }
  session(given, profiling ? "" : outputs[o].options, patterns,
          seconds * 1000u, client, NULL, 0, r);
}

static void cmd_top(uint32_t ms, uint32_t rows,
                    const struct xr_ctl_client *client, struct xr_ctl_reply *r) {
  session("xray-profiling", "no_flush=true", "*", ms, client, xr_ctl_top_rows,
          rows, r);
}

/* ---- the overhead budget ------------------------------------------------ */

/* "budget: 2 %" (or "off"), and once it has run, what it weighs and its
 * estimate. */
static void say_budget(struct xr_ctl_reply *r) {
  struct XRayBudgetStatus st;
  __xray_budget_status(&st);
  char p[32] = "off", number[24];
  if (st.percent > 0) {
    xr_budget_percent_text(st.percent, number, sizeof number);
    snprintf(p, sizeof p, "%s %%", number);
  }
  xr_ctl_say(r, "budget: %s\n", p);
  if (st.evaluations == 0 && st.functions == 0)
    return;
  unsigned long long tenths = (unsigned long long)(st.estimated_percent * 10 + 0.5);
  xr_ctl_say(r, "budget functions: %llu traced, %llu culled, %llu kept\n"
             "budget estimate: %llu.%llu %% (%llu evaluations%s)\n",
             (unsigned long long)st.traced, (unsigned long long)st.culled,
             (unsigned long long)st.kept, tenths / 10, tenths % 10,
             (unsigned long long)st.evaluations, st.unmet ? ", cannot be met" : "");
}

static void cmd_budget(uint32_t thousandths, struct xr_ctl_reply *r) {
  switch (__xray_budget_set(thousandths / 1000.0)) {
  case XRAY_BUDGET_OK:
    say_budget(r);
    return;
  case XRAY_BUDGET_NOT_INITIALIZED:
    xr_ctl_fail(r, "the program has no XRay instrumentation map");
    return;
  case XRAY_BUDGET_NO_THREAD:
    xr_ctl_fail(r, "the budget's thread could not start (the program's stderr "
                "says why); the budget is off");
    return;
  default:
    xr_ctl_fail(r, "percent out of range (0 to 100)");
    return;
  }
}

/* ---- argument capture ------------------------------------------------------ */

/* "args: SPEC" (or "none"): the SPEC in effect, as the runtime read it. */
static void say_args(struct xr_ctl_reply *r) {
  char spec[XR_ARGS_PRINT_MAX];
  __xray_args_get(spec, sizeof spec);
  xr_ctl_say(r, "args: %s\n", spec[0] ? spec : "none");
}

static void say_pattern(void *r, const char *text, size_t matched) {
  xr_ctl_say(r, "%zu %s\n", matched, text);
}

/* args [SPEC | --clear]: sets (or clears) the SPEC, then shows the SPEC in
 * effect and, per pattern, the functions it matches now. */
static void cmd_args(const char *spec, struct xr_ctl_reply *r) {
  if (spec != NULL) {
    char err[XR_ARGS_ERROR_MAX];
    bool clear = strcmp(spec, "--clear") == 0;
    if (__xray_args_set_error(clear ? NULL : spec, err, sizeof err) != XRAY_ARGS_OK) {
      xr_ctl_fail(r, "%s", err);
      return;
    }
  }
  say_args(r);
  xr_args_each_pattern(say_pattern, r);
}

/* ---- status ------------------------------------------------------------- */

/* The program's name as one word of a line: blanks and control bytes
 * become '_'. */
static const char *name_word(void) {
  static char word[256];
  snprintf(word, sizeof word, "%s", xr_program_name());
  for (char *p = word; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f)
      *p = '_';
  return word;
}

static void cmd_hello(struct xr_ctl_reply *r) {
  XRayLogInitStatus s;
  const char *mode = xr_registry_current(&s);
  xr_ctl_say(r, "%ld %s %s %s\n", (long)getpid(), name_word(),
             mode ? mode : "-", mode ? state_word(s) : "-");
}

/* "events: R recorded, D dropped" of the running built-in mode ("n/a" where
 * it cannot know; no line for another mode or none). */
static void say_events(const char *mode, struct xr_ctl_reply *r) {
  void (*stats)(struct xr_mode_stats *) =
      !mode                                ? NULL
      : strcmp(mode, "xray-basic") == 0    ? xr_basic_stats
      : strcmp(mode, "xray-fdr") == 0      ? xr_fdr_stats
      : strcmp(mode, "xray-profiling") == 0 ? xr_profiling_stats
                                            : NULL;
  if (stats == NULL)
    return;
  struct xr_mode_stats st = {0};
  stats(&st);
  char rec[24] = "n/a", drop[24] = "n/a";
  if (st.recorded_known)
    snprintf(rec, sizeof rec, "%llu", (unsigned long long)st.recorded);
  if (st.dropped_known)
    snprintf(drop, sizeof drop, "%llu", (unsigned long long)st.dropped);
  xr_ctl_say(r, "events: %s recorded, %s dropped\n", rec, drop);
}

static void cmd_status(const struct xr_ctl_client *client,
                       struct xr_ctl_reply *r) {
  XRayLogInitStatus s;
  const char *mode = xr_registry_current(&s);
  size_t objects, total, by_control, patched_now;
  uint64_t served, refused, malformed;
  count_functions(&objects, &total, &by_control, &patched_now);
  client->counters(&served, &refused, &malformed);
  xr_ctl_say(r, "pid: %ld\nprogram: %s\nruntime version: %s\nmode: %s\nstate: %s\n",
             (long)getpid(), name_word(), __xray_runtime_version(),
             mode ? mode : "none", mode ? state_word(s) : "-");
  xr_ctl_say(r, "objects: %zu\nobjects not traced: %zu\nfunctions: %zu\n"
             "functions patched: %zu / %zu\npatched by control: %zu\n", objects,
             xr_objects_not_dense(), total, patched_now, total, by_control);
  say_events(mode, r);
  say_budget(r);
  say_args(r);
  xr_ctl_say(r, "requests: %llu served, %llu malformed, %llu refused\n",
             (unsigned long long)served, (unsigned long long)malformed,
             (unsigned long long)refused);
  xr_ctl_say(r, "files written: %llu\n", (unsigned long long)xr_written_count());
  uint64_t end = xr_written_count();
  for (uint64_t i = end > 8 ? end - 8 : 0; i < end; i++) {
    char path[XR_WRITTEN_PATH_MAX];
    if (xr_written_get(i, path, sizeof path))
      xr_ctl_say(r, "file: %s\n", path);
  }
}

void xr_ctl_execute(const struct xr_ctl_request *rq,
                    const struct xr_ctl_client *client,
                    struct xr_ctl_reply *r) {
  static bool in_session; /* record or top waits; only questions meanwhile */
  if (in_session && rq->verb != XR_CTL_HELLO && rq->verb != XR_CTL_STATUS) {
    xr_ctl_fail(r, "busy: a record or top session is running; try again when "
                "it ends");
    return;
  }
  bool outer = !in_session; /* not a question asked during a session */
  if (outer)
    in_session = rq->verb == XR_CTL_RECORD || rq->verb == XR_CTL_TOP;
  switch (rq->verb) {
  case XR_CTL_HELLO:
    cmd_hello(r);
    break;
  case XR_CTL_STATUS:
    cmd_status(client, r);
    break;
  case XR_CTL_PATCH:
  case XR_CTL_UNPATCH:
    cmd_patch(rq->argv[0], rq->verb == XR_CTL_PATCH, r);
    break;
  case XR_CTL_START:
    cmd_start(rq->argv[0], rq->argc > 1 ? rq->argv[1] : NULL, r);
    break;
  case XR_CTL_STOP:
    cmd_stop(r);
    break;
  case XR_CTL_FLUSH:
    cmd_flush(r);
    break;
  case XR_CTL_SNAPSHOT:
    cmd_snapshot(r);
    break;
  case XR_CTL_RECORD:
    cmd_record(rq->number[0], rq->argv[1], rq->argv[2], rq->argv[3], client, r);
    break;
  case XR_CTL_TOP:
    cmd_top(rq->number[0], rq->number[1], client, r);
    break;
  case XR_CTL_BUDGET:
    cmd_budget(rq->thousandths, r);
    break;
  case XR_CTL_ARGS:
    cmd_args(rq->argc > 0 ? rq->argv[0] : NULL, r);
    break;
  default:
    xr_ctl_fail(r, "unknown command");
  }
  if (outer)
    in_session = false;
}
