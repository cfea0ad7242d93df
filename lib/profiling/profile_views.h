/* Readable views of a (merged) call trie: folded stacks and a report table.
 * Cold path; memory for scratch arrays comes from mmap. */
#ifndef XR_PROFILING_PROFILE_VIEWS_H
#define XR_PROFILING_PROFILE_VIEWS_H

#include "profiling/call_trie.h"
#include "core/output/text_out.h"
#include "export/pprof_mapping.h"

/* Name of a function id; never NULL (unknown ids get a made-up name). */
typedef const char *(*xr_name_fn)(void *ctx, int32_t fid);
/* Converts ticks to nanoseconds. */
typedef uint64_t (*xr_to_ns_fn)(uint64_t ticks);

enum xr_folded_value { XR_FOLDED_TIME = 0, XR_FOLDED_CALLS = 1 };

/* One line per trie node, in pre-order: `root;...;leaf <value>\n`, where
 * value is the node's local time in ns (XR_FOLDED_TIME) or its call count.
 * Names are written as given except that ';', ' ' and newlines, which the
 * format uses, become '_'. Returns 0, or -1 on a write or memory failure. */
XR_HIDDEN int xr_folded_write(const struct xr_trie *t, enum xr_folded_value v,
                              xr_name_fn name, void *name_ctx,
                              xr_to_ns_fn to_ns, struct xr_text_out *out);

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

struct xr_pprof_view_info {
  struct xr_pprof_info profile;         /* times and comment */
  uintptr_t (*address_of)(int32_t fid); /* run-time address, or NULL */
  /* The symbol as in the binary (C++: mangled), or NULL; NULL: none. */
  const char *(*system_name_of)(int32_t fid);
  /* The mapping holding a code address (xr_pprof_mapping_of): fills all of
   * *m but its id; 0, or -1 when none does. NULL: no mappings. */
  int (*mapping_of)(uintptr_t addr, struct xr_pprof_mapping *m,
                    struct xr_pprof_mapping_text *text);
};

/* pprof profile.proto (lib/export/pprof.h): one sample per node with calls
 * and local time in ns, leaf first; a function and a location per function
 * id, with its name and address; a mapping per object that holds one of
 * those addresses (ids 1, 2, ... in order of function id). Returns 0 or -1. */
XR_HIDDEN int xr_pprof_view_write(const struct xr_trie *t,
                                  const struct xr_pprof_view_info *info,
                                  xr_name_fn name, void *name_ctx,
                                  xr_to_ns_fn to_ns, struct xr_text_out *out);

/* Upper bound, in ticks, of the duration of the call at percentile pct
 * (1..100) in hist; 0 for an empty histogram. */
XR_HIDDEN uint64_t xr_hist_percentile(const uint64_t *hist, unsigned pct);

#endif
