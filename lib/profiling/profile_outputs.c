/* Profiling mode's files. See profile_outputs.h.
 *
 * Memory: the blocks were built at finalize; the report reads each thread's
 * trie in place; folded and pprof read one merged trie, which with
 * fold_recursion (the default) is the folded one: no function twice on a
 * path, so its size follows the program's distinct call paths without
 * recursion, not the depth of the recursion. */
#define _GNU_SOURCE
#include "profiling/profile_outputs.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/modes/budget_hooks.h"
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/options/option_words.h"
#include "core/options/options.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/thread/thread.h"
#include "export/pprof_mapping.h"
#include "profiling/profile_folded.h"
#include "profiling/profile_pprof.h"
#include "profiling/profile_report.h"
#include "profiling/trie_fold.h"
#include "xray/xray_interface.h"
#include "xray/xray_version.h"

#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static uintptr_t function_address(int32_t id) {
  return __xray_function_address(id);
}

/* The ELF symbol of a function (mangled for C++), for pprof's system_name;
 * NULL when there is none. Ids are packed: object << 24 | function. */
static const char *symbol_of(int32_t id) {
  const struct xr_name_table *t;
  int32_t fn = xr_id_function(id);
  if (xr_names_table(xr_id_object(id), &t) == XR_NAMES_OK && fn >= 1 &&
      (size_t)fn <= t->count)
    return t->entries[fn - 1].symbol;
  return NULL;
}

static struct xr_trie_losses total_losses(const struct xr_prof_run *run) {
  struct xr_trie_losses l = {0, 0, 0};
  for (size_t i = 0; i < run->trie_count; i++) {
    l.no_memory += run->tries[i]->lost.no_memory;
    l.too_deep += run->tries[i]->lost.too_deep;
    l.unmatched_exit += run->tries[i]->lost.unmatched_exit;
  }
  l.no_memory += run->lost_events;
  return l;
}

/* All threads in one trie, recursion folded or not. NULL: no memory. */
static struct xr_trie *merge_all(const struct xr_prof_run *run, bool fold) {
  struct xr_trie_config c = {.chunk_bytes = 1 << 20,
                             .stack_bytes = 4096,
                             .max_depth = UINT32_MAX};
  struct xr_trie *m = xr_trie_create(&c);
  if (m == NULL)
    return NULL;
  for (size_t i = 0; i < run->trie_count; i++) {
    uint64_t lost = fold ? xr_trie_fold_merge(m, run->tries[i])
                         : xr_trie_merge(m, run->tries[i]);
    if (lost != 0) {
      xr_trie_destroy(m);
      return NULL;
    }
  }
  return m;
}

static int write_pprof(const struct xr_prof_run *run, struct xr_trie *merged,
                       struct xr_text_out *text) {
  static char comment[256];
  snprintf(comment, sizeof(comment),
           "XRay runtime %s, profiling mode; clock %s at %llu Hz; "
           "recursion %s; time = local (self) time",
           XRAY_RUNTIME_VERSION, xr_clock.source ? xr_clock.source : "?",
           (unsigned long long)xr_clock.frequency_hz,
           run->fold_recursion ? "folded" : "not folded");
  struct xr_pprof_view_info info = {
      .profile = {.time_nanos = run->start_ns,
                  .duration_nanos = run->end_ns - run->start_ns,
                  .comment = comment},
      .address_of = function_address,
      .system_name_of = symbol_of,
      .mapping_of = xr_pprof_mapping_of,
  };
  return xr_pprof_view_write(merged, &info, xr_names_get_name, NULL, xr_ticks_to_ns,
                             text);
}

static int write_folded(const struct xr_prof_run *run, struct xr_trie *merged,
                        struct xr_text_out *text) {
  return xr_folded_write(merged,
                         run->folded_calls ? XR_FOLDED_CALLS : XR_FOLDED_TIME,
                         xr_names_get_name, NULL, xr_ticks_to_ns, text);
}

static int write_report(const struct xr_prof_run *run, struct xr_trie *merged,
                        struct xr_text_out *text) {
  (void)merged; /* per thread */
  struct xr_prof_report_info info = {
      .program = xr_program_name(),
      .pid = (uint64_t)xr_pid(),
      .threads = run->trie_count,
      .frequency_hz = xr_clock.frequency_hz,
      .lost = total_losses(run),
      .lost_threads = run->not_collected,
      .top = (size_t)run->report_top,
  };
  return xr_prof_report_write(run->tries, run->trie_count, &info,
                              xr_names_get_name, NULL, xr_ticks_to_ns, text);
}

/* One row per profiling_output word, in bit order (XR_PROF_OUT_*). A view
 * that reads one merged trie gets it built once for all of them. */
static const struct {
  const char *word;
  const char *suffix; /* NULL: the log itself, the compiler-rt blocks */
  bool merged;
  int (*write)(const struct xr_prof_run *run, struct xr_trie *merged,
               struct xr_text_out *text);
} views[] = {
    {"xray", NULL, false, NULL},
    {"folded", ".folded", true, write_folded},
    {"report", ".txt", false, write_report},
    {"pprof", ".pb", true, write_pprof},
};
_Static_assert(XR_PROF_OUT_PPROF == 1u << 3, "bits follow the row order");

unsigned xr_prof_outputs_parse(const char *s) {
  const char *words[XR_ARRAY_SIZE(views)];
  for (size_t i = 0; i < XR_ARRAY_SIZE(views); i++)
    words[i] = views[i].word;
  return xr_options_word_set(s, words, XR_ARRAY_SIZE(views));
}

void xr_prof_outputs_help(char *buf, size_t cap) {
  const char *words[XR_ARRAY_SIZE(views)], *notes[XR_ARRAY_SIZE(views)];
  char files[XR_ARRAY_SIZE(views)][32];
  for (size_t i = 0; i < XR_ARRAY_SIZE(views); i++) {
    words[i] = views[i].word;
    snprintf(files[i], sizeof files[i], "<log>%s",
             views[i].suffix ? views[i].suffix : "");
    notes[i] = views[i].suffix ? files[i] : "the log: compiler-rt's blocks";
  }
  xr_options_word_list(buf, cap, words, notes, XR_ARRAY_SIZE(views));
}

static void write_view(const struct xr_prof_run *run, const char *path,
                       size_t v, struct xr_trie *merged) {
  char out[PATH_MAX];
  int fd = xr_open_sibling_file(path, views[v].suffix, out, sizeof(out));
  if (fd < 0)
    return;
  static struct xr_text_out text; /* 16 KiB: not on the stack */
  xr_text_init(&text, xr_text_fd_sink, &fd);
  if (views[v].write(run, merged, &text) != 0)
    xr_report(XR_ERROR, "xray-profiling: writing '%s' failed: %s", out,
              strerror(text.failed ? text.failed : errno));
  close(fd);
}

/* Names come from the shared name table (lib/core/names/names.c): every object's
 * functions, demangled where the program links a C++ runtime. The views of
 * the threads' own tries first, then those of the merged one. */
static void write_views(const struct xr_prof_run *run, const char *path) {
  unsigned wanted_merged = 0;
  for (size_t v = 0; v < XR_ARRAY_SIZE(views); v++) {
    if (!(run->outputs >> v & 1) || views[v].write == NULL)
      continue;
    if (views[v].merged)
      wanted_merged |= 1u << v;
    else
      write_view(run, path, v, NULL);
  }
  if (wanted_merged == 0)
    return;
  struct xr_trie *merged = merge_all(run, run->fold_recursion);
  if (merged == NULL) {
    const char *lost[XR_ARRAY_SIZE(views)];
    size_t n = 0;
    for (size_t v = 0; v < XR_ARRAY_SIZE(views); v++)
      if (wanted_merged >> v & 1)
        lost[n++] = views[v].word;
    char words[XR_OPTION_WORDS_MAX];
    xr_options_word_list(words, sizeof words, lost, NULL, n);
    xr_report(XR_ERROR, "xray-profiling: no memory to merge the threads' "
              "profiles; %s not written", words);
    return;
  }
  for (size_t v = 0; v < XR_ARRAY_SIZE(views); v++)
    if (wanted_merged >> v & 1)
      write_view(run, path, v, merged);
  xr_trie_destroy(merged);
}

void xr_prof_write_outputs(const struct xr_prof_run *run) {
  char path[PATH_MAX];
  int fd = xr_open_log_file(path, sizeof(path));
  if (fd < 0)
    return;
  if ((run->outputs & XR_PROF_OUT_XRAY) && run->blocks != NULL &&
      xr_write_all(fd, run->blocks, run->blocks_size) != 0)
    xr_report(XR_ERROR, "xray-profiling: writing '%s' failed: %s", path,
              strerror(errno));
  close(fd);
  write_views(run, path);
  if (xr_budget_write_culled)
    xr_budget_write_culled(path); /* only when the budget ran */
  /* The name was reserved for the siblings only. */
  if (!(run->outputs & XR_PROF_OUT_XRAY))
    unlink(path);
  struct xr_trie_losses l = total_losses(run);
  if (l.no_memory != 0 || l.too_deep != 0 || run->not_collected != 0)
    xr_report(XR_ERROR,
              "xray-profiling: not recorded: %llu call(s) for lack of memory "
              "(raise global_allocator_max), %llu call(s) deeper than "
              "max_depth/stack_allocator_max, %llu busy thread(s)",
              (unsigned long long)l.no_memory, (unsigned long long)l.too_deep,
              (unsigned long long)run->not_collected);
}
