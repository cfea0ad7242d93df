/* The xray-profiling option table and its checks. Defaults of compiler-rt's
 * options are compiler-rt 14's (its
 * xray_profiling_flags.inc); the meaning of the three
 * allocator sizes is ours (docs/profiling-mode.md). */
#include "profiling/profiling_options.h"
#include "core/base/report.h"
#include "core/options/option_words.h"
#include "core/thread/quiesce.h"
#include "profiling/profile_outputs.h"

#include <stddef.h>
#include <string.h>

#define F(field) offsetof(struct xr_profiling_flags, field)

static const struct xr_option options[] = {
    {"per_thread_allocator_max", XR_OPT_UPTR, F(per_thread_allocator_max), 0,
     "16384", 1024, (int64_t)1 << 30,
     "bytes a thread's call trie grows by at a time (a chunk of nodes)", NULL},
    {"global_allocator_max", XR_OPT_UPTR, F(global_allocator_max), 0,
     "33554432", 4096, (int64_t)1 << 40,
     "bytes of call-trie nodes all threads together may hold", NULL},
    {"stack_allocator_max", XR_OPT_UPTR, F(stack_allocator_max), 0, "2097152",
     4096, (int64_t)1 << 32,
     "bytes of shadow stack per thread (32 per open call)", NULL},
    {"grace_period_ms", XR_OPT_INT, F(grace_period_ms), 0, XR_QUIESCE_BOUND_DEFAULT_TEXT, 0,
     60000, "longest wait at finalize for threads still inside the handler"
     XR_QUIESCE_BOUND_RANGE_TEXT, NULL},
    {"no_flush", XR_OPT_BOOL, F(no_flush), 0, "false", 0, 0,
     "flush writes no file (data stays reachable in memory until flush)", NULL},
    {"buffers_max", XR_OPT_INT, F(buffers_max), 0, "128", 1, 1 << 20,
     "accepted for compatibility with compiler-rt; unused", NULL},
    {"max_depth", XR_OPT_INT, F(max_depth), 0, "1024", 1, 1 << 20,
     "deepest call path recorded; deeper calls count in their ancestor", NULL},
    {"report_top", XR_OPT_INT, F(report_top), 0, "30", 1, 1 << 20,
     "rows of the report (profiling_output=report)", NULL},
    {"profiling_output", XR_OPT_STRING, F(profiling_output), 64, "xray", 0, 0,
     "files to write at flush, several joined by '+'", xr_prof_outputs_help},
    {"folded_value", XR_OPT_STRING, F(folded_value), 16, "time", 0, 0,
     "value of a folded line: time (local ns) or calls", NULL},
    {"fold_recursion", XR_OPT_BOOL, F(fold_recursion), 0, "true", 0, 0,
     "folded and pprof outputs: merge a recursive call into the frame it "
     "recurses to (the xray blocks are never folded)", NULL},
};

const struct xr_option_table xr_profiling_options_table = {
    "XRAY_PROFILING_OPTIONS", options, XR_ARRAY_SIZE(options)};

int xr_profiling_flags_load(struct xr_profiling_flags *f, const void *config,
                            size_t config_size, unsigned *outputs,
                            bool *folded_calls) {
  const struct xr_option_table *table = &xr_profiling_options_table;
  xr_options_set_defaults(table, f);
  int bad = xr_options_parse(table, f, xr_getenv("XRAY_PROFILING_OPTIONS"),
                             "XRAY_PROFILING_OPTIONS");
  bad += xr_options_parse_config(table, f, config, config_size,
                                 "xray-profiling config");
  *outputs = xr_prof_outputs_parse(f->profiling_output);
  if (*outputs == 0) {
    char words[XR_OPTION_WORDS_MAX];
    xr_prof_outputs_help(words, sizeof words);
    xr_report(XR_ERROR, "xray-profiling: profiling_output '%s' is not a list "
              "of %s", f->profiling_output, words);
    bad++;
  }
  *folded_calls = strcmp(f->folded_value, "calls") == 0;
  if (!*folded_calls && strcmp(f->folded_value, "time") != 0) {
    xr_report(XR_ERROR, "xray-profiling: folded_value '%s' is neither time "
              "nor calls", f->folded_value);
    bad++;
  }
  if (bad != 0) {
    xr_report(XR_ERROR, "xray-profiling: bad configuration; not starting");
    return -1;
  }
  if (f->per_thread_allocator_max > f->global_allocator_max) {
    xr_report(XR_ERROR, "xray-profiling: per_thread_allocator_max (%llu) is "
              "larger than global_allocator_max (%llu): no thread could "
              "record; not starting",
              (unsigned long long)f->per_thread_allocator_max,
              (unsigned long long)f->global_allocator_max);
    return -1;
  }
  return 0;
}
