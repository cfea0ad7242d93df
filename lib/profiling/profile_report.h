/* The report view: a table of the functions that take the most local time
 * (profile_report.c). Cold path; memory for scratch arrays comes from
 * mmap. */
#ifndef XR_PROFILING_PROFILE_REPORT_H
#define XR_PROFILING_PROFILE_REPORT_H

#include "core/output/text_out.h"
#include "profiling/call_trie.h"
#include "profiling/profile_views.h"

struct xr_prof_report_info {
  const char *program;
  uint64_t pid;
  uint64_t threads;
  uint64_t frequency_hz;
  struct xr_trie_losses lost;
  uint64_t lost_threads; /* tries that could not be collected or created */
  size_t top;            /* rows to print */
};

/* The top functions by local time (all paths and threads together), with
 * calls, total time (outermost calls only, so recursion is not counted
 * twice), local time and p50/p90/p99 of single-call durations from the
 * histograms, and the local time of all functions together. Reads each
 * thread's trie in place: memory is 4 bytes per node (to sort the ids), a
 * row per distinct function and a slot per level of the deepest path.
 * Returns 0 or -1. */
XR_HIDDEN int xr_prof_report_write(struct xr_trie *const *tries, size_t ntries,
                              const struct xr_prof_report_info *info,
                              xr_name_fn name, void *name_ctx,
                              xr_to_ns_fn to_ns, struct xr_text_out *out);

/* Upper bound, in ticks, of the duration of the call at percentile pct
 * (1..100) in hist; 0 for an empty histogram. */
XR_HIDDEN uint64_t xr_hist_percentile(const uint64_t *hist, unsigned pct);

#endif
